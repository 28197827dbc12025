package dev.turnstile.bench;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.turnstile.bridge.config.BridgeConfig;
import dev.turnstile.bridge.config.BridgeConfigLoader;
import dev.turnstile.bridge.config.BridgeConfigModel;
import dev.turnstile.bridge.config.BridgeProducerConfig;
import dev.turnstile.schemas.Json;
import io.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import io.cloudevents.kafka.KafkaMessageFactory;
import java.net.URI;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Child JVM: the baseline of the bridge benchmark, a bare {@link KafkaProducer} with the bridge's
 * producer configuration ({@link #config}) sending records of the bridge's shape (key = device id,
 * CloudEvents headers in binary mode, the JSON value the bridge writes, each built and serialised
 * as it is sent, as an application writing its events straight to Kafka does) as fast as it is
 * acknowledged, at most {@code window} in flight.
 *
 * <p>Arguments: bootstrap topic devices window warmupMillis measureMillis, then the producer's
 * configuration as {@code key=value} arguments. Prints {@code RESULT <acked in the measured window>
 * <window seconds> <acked in all> <failed>}.
 */
public final class ProducerRunner {

  /**
   * The producer the bridge's {@code KafkaEventPublisher} builds, computed by the same code ({@link
   * BridgeProducerConfig}) from the same {@code kafka.*} and {@code kafka.producer.*} keys and ack
   * timeout the run gives the bridge: the baseline differs from the bridge only in what surrounds
   * the producer, and in {@code max.block.ms}, left at Kafka's default: this loop may block, the
   * bridge's threads may not.
   *
   * @param bridgeOverrides the bridge's configuration keys given to the run ({@code --set})
   */
  static Map<String, Object> config(Map<String, String> bridgeOverrides) {
    // Loaded as the bridge loads them (checked, kafka.producer.* over kafka.*). The bootstrap is
    // the runner's own and device access is not the producer's, so placeholders do here.
    Map<String, String> keys = new HashMap<>(bridgeOverrides);
    keys.putIfAbsent(BridgeConfigModel.KAFKA_BOOTSTRAP_SERVERS.name(), "unused:9092");
    keys.putIfAbsent(BridgeConfigModel.AUTH_ENABLED.name(), "false");
    BridgeConfig bridge = BridgeConfigLoader.fromMap(keys);
    Map<String, String> passThrough = new HashMap<>(bridge.producerProperties());
    passThrough.remove(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG);
    Map<String, Object> config =
        new TreeMap<>(
            BridgeProducerConfig.properties(
                passThrough, bridge.get(BridgeConfigModel.KAFKA_ACK_TIMEOUT_MS)));
    config.put(ProducerConfig.CLIENT_ID_CONFIG, "bench-raw-producer");
    config.remove(ProducerConfig.MAX_BLOCK_MS_CONFIG);
    return config;
  }

  private static final URI DATA_SCHEMA =
      URI.create("https://turnstile.dev/schemas/device-event.v1.schema.json");

  public static void main(String[] args) throws Exception {
    String bootstrap = args[0];
    String topic = args[1];
    int devices = Integer.parseInt(args[2]);
    int window = Integer.parseInt(args[3]);
    long warmupNanos = TimeUnit.MILLISECONDS.toNanos(Long.parseLong(args[4]));
    long measureNanos = TimeUnit.MILLISECONDS.toNanos(Long.parseLong(args[5]));
    Map<String, Object> config = new HashMap<>();
    for (int i = 6; i < args.length; i++) {
      String[] entry = args[i].split("=", 2);
      if (entry.length != 2 || entry[0].isEmpty()) {
        throw new IllegalArgumentException("not a producer setting key=value: " + args[i]);
      }
      config.put(entry[0], entry[1]);
    }
    config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    OffsetDateTime occurredAt = OffsetDateTime.now(ZoneOffset.UTC).minusHours(1);
    Semaphore inFlight = new Semaphore(window);
    AtomicLong measured = new AtomicLong();
    AtomicLong acked = new AtomicLong();
    AtomicLong failed = new AtomicLong();
    try (KafkaProducer<String, byte[]> producer =
        new KafkaProducer<>(config, new StringSerializer(), new ByteArraySerializer())) {
      // The clock starts once the producer is built and knows the topic's partitions: on a loaded
      // machine building it can take longer than a short run's whole window.
      producer.partitionsFor(topic);
      long start = System.nanoTime();
      long from = start + warmupNanos;
      long until = from + measureNanos;
      for (long i = 0; System.nanoTime() < until; i++) {
        inFlight.acquire();
        producer.send(
            record(topic, "station-" + (i % devices), "raw-" + i, occurredAt),
            (metadata, error) -> {
              long now = System.nanoTime();
              if (error != null) {
                failed.incrementAndGet();
              } else {
                acked.incrementAndGet();
                if (now >= from && now < until) {
                  measured.incrementAndGet();
                }
              }
              inFlight.release();
            });
      }
      inFlight.acquire(window);
    }
    System.out.printf(
        "RESULT %d %.3f %d %d%n", measured.get(), measureNanos / 1e9, acked.get(), failed.get());
    System.out.flush();
  }

  /**
   * One record of the bridge's shape, built as an application that writes its events straight to
   * Kafka builds them: the JSON value serialised, the CloudEvent's attributes as headers.
   */
  private static ProducerRecord<String, byte[]> record(
      String topic, String device, String eventId, OffsetDateTime occurredAt) {
    ObjectNode value = Json.mapper().createObjectNode();
    value.put("deviceId", device);
    value.put("eventId", eventId);
    value.put("type", "Started");
    value.put("occurredAt", occurredAt.toString());
    value.put("sessionRef", eventId);
    value.put("receivedAt", java.time.Instant.now().toString());
    byte[] data;
    try {
      data = Json.mapper().writeValueAsBytes(value);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
    CloudEvent event =
        CloudEventBuilder.v1()
            .withId(eventId)
            .withSource(URI.create("/devices/" + device))
            .withType("dev.turnstile.device.started.v1")
            .withTime(occurredAt)
            .withSubject(device)
            .withDataContentType("application/json")
            .withDataSchema(DATA_SCHEMA)
            .withData(data)
            .build();
    return KafkaMessageFactory.createWriter(topic, null, System.currentTimeMillis(), device)
        .writeBinary(event);
  }

  private ProducerRunner() {}
}
