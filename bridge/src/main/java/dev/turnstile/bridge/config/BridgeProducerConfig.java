package dev.turnstile.bridge.config;

import static org.apache.kafka.clients.producer.ProducerConfig.*;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.BiFunction;

/**
 * The configuration of the bridge's one Kafka producer, computed here and nowhere else: Turnstile's
 * defaults, then the {@code kafka.*} and {@code kafka.producer.*} keys given, then the keys the
 * bridge fixes. Each fixed key is declared once, below, with its value and the reason a user may
 * not set it; {@link BridgeConfigModel#MODEL} refuses it with that reason and the generated
 * documentation lists it.
 */
public final class BridgeProducerConfig {

  /**
   * Every HTTP answer waits for its record's ack, so the linger is paid by each request: at 64
   * connections 5 ms (Kafka's default) gave 7,500 requests/s and 1 ms 11,700, with batches still
   * full under load (bench bridge, issue 14). {@code kafka.producer.linger.ms} overrides it.
   */
  static final int LINGER_MS = 1;

  /**
   * A batch request's events share one key, so they fill one partition's batches at once: with
   * Kafka's 16 KiB a batch of 100 events took several producer batches, each with its own 64 KiB
   * LZ4 block buffer, and 64 KiB took a sixth more records/s for a tenth less CPU per record (bench
   * bridge, docs/testing.md, "Bridge"). Single events, a few per partition per linger, do not fill
   * even 16 KiB. {@code kafka.producer.batch.size} overrides it.
   */
  static final int BATCH_SIZE = 64 * 1024;

  /**
   * A key the bridge sets itself.
   *
   * @param value its value from the producer's configuration so far and the ack timeout; {@code
   *     null} when the bridge sets none (the publisher hands the producer its serializers)
   */
  private record Fixed(
      String key, String reason, BiFunction<Map<String, Object>, Duration, Object> value) {}

  private BridgeProducerConfig() {}

  private static List<Fixed> fixed() {
    String derived = "derived from " + BridgeConfigModel.KAFKA_ACK_TIMEOUT_MS;
    String ours = "set by the bridge";
    // The topology relies on Kafka's default placement (the murmur2 hash of the key): a device's
    // events and resends on one partition (dedup, sessions), the one its queries are routed to by
    // that hash; and a billing record placed by it is merged in place (placed otherwise, it only
    // takes the merge-inputs.v1 hop).
    String keyed =
        "fixed at Kafka's default: the topology needs each device's events on the one partition"
            + " that partitioner gives its key (dedup, sessions, queries), and merges a billing"
            + " record in place where it puts its merge key";
    return List.of(
        new Fixed(
            ACKS_CONFIG,
            "fixed at all: a 2xx or a Service Bus complete means every in-sync replica has the record",
            (c, ack) -> "all"),
        new Fixed(
            ENABLE_IDEMPOTENCE_CONFIG,
            "fixed at true: a producer retry must not duplicate or reorder records",
            (c, ack) -> true),
        new Fixed(
            TRANSACTIONAL_ID_CONFIG,
            "the bridge's producer is idempotent, not transactional",
            (c, ack) -> null),
        new Fixed(PARTITIONER_CLASS_CONFIG, keyed, (c, ack) -> null),
        new Fixed(PARTITIONER_IGNORE_KEYS_CONFIG, keyed, (c, ack) -> null),
        new Fixed(DELIVERY_TIMEOUT_MS_CONFIG, derived, (c, ack) -> (int) ack.toMillis()),
        // Kafka requires delivery.timeout.ms >= linger.ms + request.timeout.ms.
        new Fixed(
            REQUEST_TIMEOUT_MS_CONFIG,
            derived,
            (c, ack) -> (int) Math.max(1, ack.toMillis() - linger(c) - 1)),
        new Fixed(
            MAX_BLOCK_MS_CONFIG,
            "fixed at 0: sends run on the threads that hand the bridge its events (HTTP event"
                + " loops, Service Bus receivers) and must not block them; a record Kafka cannot"
                + " take at once is tried again until "
                + BridgeConfigModel.KAFKA_ACK_TIMEOUT_MS,
            (c, ack) -> 0L),
        new Fixed(KEY_SERIALIZER_CLASS_CONFIG, ours, (c, ack) -> null),
        new Fixed(VALUE_SERIALIZER_CLASS_CONFIG, ours, (c, ack) -> null));
  }

  /** Every fixed producer key, with the reason it gives when set. */
  static Map<String, String> fixedKeys() {
    Map<String, String> reasons = new TreeMap<>();
    fixed().forEach(f -> reasons.put(f.key(), f.reason()));
    return reasons;
  }

  /**
   * The producer defaults that are Turnstile's, not Kafka's; {@code kafka.producer.*} and {@code
   * kafka.*} keys override them. LZ4: the raw topics' records are JSON.
   */
  public static Map<String, Object> defaults() {
    return new TreeMap<>(
        Map.of(
            CLIENT_ID_CONFIG,
            "turnstile-bridge",
            COMPRESSION_TYPE_CONFIG,
            "lz4",
            LINGER_MS_CONFIG,
            LINGER_MS,
            BATCH_SIZE_CONFIG,
            BATCH_SIZE));
  }

  /**
   * The producer's configuration, without its serializers.
   *
   * @param passThrough client keys given ({@code kafka.*} then {@code kafka.producer.*}, prefixes
   *     removed), which the model checked
   * @param ackTimeout {@link BridgeConfigModel#KAFKA_ACK_TIMEOUT_MS}
   */
  public static Map<String, Object> properties(
      Map<String, String> passThrough, Duration ackTimeout) {
    Map<String, Object> config = new HashMap<>(defaults());
    config.putAll(passThrough);
    for (Fixed fixed : fixed()) {
      Object value = fixed.value().apply(config, ackTimeout);
      if (value != null) {
        config.put(fixed.key(), value);
      }
    }
    return config;
  }

  private static long linger(Map<String, Object> config) {
    return Long.parseLong(String.valueOf(config.get(LINGER_MS_CONFIG)));
  }
}
