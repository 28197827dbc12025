package dev.turnstile.topology.config;

import static dev.turnstile.topology.config.TopologyConfigModel.APPLICATION_ID;
import static dev.turnstile.topology.config.TopologyConfigModel.BOOTSTRAP_SERVERS;
import static dev.turnstile.topology.config.TopologyConfigModel.GENERATION;
import static dev.turnstile.topology.config.TopologyConfigModel.NUM_STANDBY_REPLICAS;
import static dev.turnstile.topology.config.TopologyConfigModel.NUM_STREAM_THREADS;
import static dev.turnstile.topology.config.TopologyConfigModel.QUERY_ADVERTISED_SERVER;
import static dev.turnstile.topology.config.TopologyConfigModel.STATE_DIR;
import static org.apache.kafka.clients.consumer.ConsumerConfig.ISOLATION_LEVEL_CONFIG;
import static org.apache.kafka.clients.producer.ProducerConfig.ACKS_CONFIG;
import static org.apache.kafka.clients.producer.ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG;
import static org.apache.kafka.clients.producer.ProducerConfig.PARTITIONER_CLASS_CONFIG;
import static org.apache.kafka.clients.producer.ProducerConfig.PARTITIONER_IGNORE_KEYS_CONFIG;
import static org.apache.kafka.clients.producer.ProducerConfig.TRANSACTIONAL_ID_CONFIG;
import static org.apache.kafka.streams.StreamsConfig.*;

import dev.turnstile.runtime.config.Setting;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.function.BiFunction;
import org.apache.kafka.streams.StreamsConfig;

/**
 * The Kafka Streams configuration the topology runs with, computed here and nowhere else: the
 * declared {@code kafka.streams.*} settings with their values (defaults included: a default takes
 * effect because it is declared), the {@code kafka.*} and {@code kafka.streams.*} keys given, then
 * the keys Turnstile fixes. Each fixed key is declared once, below, with its value and the reason a
 * user may not set it; {@link TopologyConfigModel#MODEL} refuses it with that reason and the
 * generated documentation lists it.
 */
public final class StreamsProperties {

  /** Client prefixes Kafka Streams itself understands inside its own configuration. */
  static final List<String> NESTED_CLIENTS =
      List.of(
          "producer.",
          "consumer.",
          "main.consumer.",
          "restore.consumer.",
          "global.consumer.",
          "admin.");

  /**
   * The classes the topology plugs into Kafka Streams. They live in the Kafka Streams adapter,
   * which depends on this package; its composition root names them.
   *
   * @param rocksDbConfigSetter bounds RocksDB memory and sets compression, see {@code
   *     kafka.streams.turnstile.rocksdb.*}
   * @param exceptionHandler turns what a stage cannot handle into a {@code rejected-events.v1}
   *     record: processing, production and deserialization
   * @param timestampExtractor replaces unusable record timestamps
   */
  public record Plugins(
      Class<?> rocksDbConfigSetter, Class<?> exceptionHandler, Class<?> timestampExtractor) {}

  /**
   * A key Turnstile sets itself.
   *
   * @param value its value, {@code null} when Kafka Streams sets it (exactly-once implies it) or
   *     the process does when it starts ({@code application.server})
   */
  private record Fixed(
      String key, String reason, BiFunction<TopologyConfig, Plugins, Object> value) {}

  private StreamsProperties() {}

  private static List<Fixed> fixed() {
    String noSenderStopsAThread =
        "fixed: nothing a sender controls may stop a stream thread (rejected-events.v1 instead)";
    String explicitNames = "fixed at true: generated names would move state between releases";
    List<Fixed> fixed =
        new ArrayList<>(
            List.of(
                at(PROCESSING_GUARANTEE_CONFIG, EXACTLY_ONCE_V2, "fixed at exactly_once_v2"),
                new Fixed(
                    APPLICATION_ID_CONFIG,
                    "set " + APPLICATION_ID + " (and " + GENERATION + ")",
                    (c, p) -> c.applicationId()),
                from(BOOTSTRAP_SERVERS_CONFIG, BOOTSTRAP_SERVERS),
                from(STATE_DIR_CONFIG, STATE_DIR),
                from(NUM_STREAM_THREADS_CONFIG, NUM_STREAM_THREADS),
                from(NUM_STANDBY_REPLICAS_CONFIG, NUM_STANDBY_REPLICAS),
                at(APPLICATION_SERVER_CONFIG, null, "set " + QUERY_ADVERTISED_SERVER),
                at(
                    GROUP_PROTOCOL_CONFIG,
                    "classic",
                    "fixed at classic: the streams protocol lacks warm-ups and the HA assignor"),
                at(ENSURE_EXPLICIT_INTERNAL_RESOURCE_NAMING_CONFIG, true, explicitNames),
                new Fixed(
                    ROCKSDB_CONFIG_SETTER_CLASS_CONFIG,
                    "fixed: it bounds RocksDB memory and sets compression; see"
                        + " kafka.streams.turnstile.rocksdb.*",
                    (c, p) -> p.rocksDbConfigSetter()),
                new Fixed(
                    PROCESSING_EXCEPTION_HANDLER_CLASS_CONFIG,
                    noSenderStopsAThread,
                    (c, p) -> p.exceptionHandler()),
                new Fixed(
                    PRODUCTION_EXCEPTION_HANDLER_CLASS_CONFIG,
                    noSenderStopsAThread,
                    (c, p) -> p.exceptionHandler()),
                new Fixed(
                    DESERIALIZATION_EXCEPTION_HANDLER_CLASS_CONFIG,
                    noSenderStopsAThread,
                    (c, p) -> p.exceptionHandler()),
                new Fixed(
                    DEFAULT_TIMESTAMP_EXTRACTOR_CLASS_CONFIG,
                    noSenderStopsAThread,
                    (c, p) -> p.timestampExtractor())));
    fixed.addAll(clientKeys(""));
    NESTED_CLIENTS.forEach(nested -> fixed.addAll(clientKeys(nested)));
    return fixed;
  }

  /** Fixed at {@code value}; {@code null}: set by Kafka Streams or as the process starts. */
  private static Fixed at(String key, Object value, String reason) {
    return new Fixed(key, reason, (c, p) -> value);
  }

  /** The value of a setting, under Kafka Streams' name. */
  private static Fixed from(String key, Setting<?> setting) {
    return new Fixed(key, "set " + setting, (c, p) -> String.valueOf(c.get(setting)));
  }

  /**
   * Client keys exactly-once depends on, which {@code exactly_once_v2} sets (Kafka Streams, not
   * Turnstile, gives their values): {@code isolation.level} for a consumer; {@code acks}, {@code
   * enable.idempotence} and {@code transactional.id} for a producer; and the producer's partitioner
   * ({@code partitioner.class}, {@code partitioner.ignore.keys}), left at Kafka's default, which
   * places a keyed record by the murmur2 hash of its key: {@code merge} finds a Service Bus patch
   * already on its merge key's partition by that rule, so a {@code merge-inputs.v1} record placed
   * otherwise would put one key's patches in two tasks. Under the prefix that addresses that client
   * ({@code ""}: all clients).
   */
  private static List<Fixed> clientKeys(String nested) {
    Map<String, String> reasons = new TreeMap<>();
    if (nested.isEmpty() || nested.endsWith("consumer.")) {
      reasons.put(ISOLATION_LEVEL_CONFIG, "fixed at read_committed by exactly_once_v2");
    }
    if (nested.isEmpty() || nested.equals("producer.")) {
      reasons.put(ENABLE_IDEMPOTENCE_CONFIG, "fixed at true by exactly_once_v2");
      reasons.put(ACKS_CONFIG, "fixed at all by exactly_once_v2");
      reasons.put(TRANSACTIONAL_ID_CONFIG, "set by Kafka Streams from " + APPLICATION_ID);
      String partitioner =
          "fixed at Kafka's default: one merge key's patches, merged in place or through"
              + " merge-inputs.v1, must meet in one task";
      reasons.put(PARTITIONER_CLASS_CONFIG, partitioner);
      reasons.put(PARTITIONER_IGNORE_KEYS_CONFIG, partitioner);
    }
    List<Fixed> fixed = new ArrayList<>();
    reasons.forEach((key, reason) -> fixed.add(at(nested + key, null, reason)));
    return fixed;
  }

  /** Every key fixed in Kafka Streams' configuration, with the reason it gives when set. */
  static Map<String, String> fixedKeys() {
    return reasons(fixed());
  }

  /** The client keys fixed for every Kafka client, with the reason each gives when set. */
  static Map<String, String> fixedClientKeys() {
    return reasons(clientKeys(""));
  }

  private static Map<String, String> reasons(List<Fixed> fixed) {
    Map<String, String> reasons = new TreeMap<>();
    fixed.forEach(f -> reasons.put(f.key(), f.reason()));
    return reasons;
  }

  /**
   * The Kafka Streams configuration of {@code config} with {@code plugins}; {@code
   * application.server} is the process's to add once its HTTP server listens.
   */
  public static Properties of(TopologyConfig config, Plugins plugins) {
    Properties p = new Properties();
    // No global stores; set as Kafka 5.0 will default it, which also silences a start-up warning.
    p.put(StreamsConfig.PROCESSING_EXCEPTION_HANDLER_GLOBAL_ENABLED_CONFIG, true);
    String prefix = TopologyConfigModel.KAFKA_STREAMS_PREFIX;
    for (String key : TopologyConfigModel.MODEL.keys().names()) {
      if (key.startsWith(prefix)) {
        p.put(key.substring(prefix.length()), config.settings().get(key));
      }
    }
    // Not transactional state stores, though RestoreTimeBenchmark measured them ~8x faster with a
    // clean restart that keeps its state: in Kafka 4.4 reading their uncommitted-bytes metric
    // while a store closes (shutdown, rebalance) crashed the JVM (SIGSEGV in
    // WriteBatch.getDataSize, seen under a metrics scrape). Overridable per deployment with
    // kafka.streams.enable.transactional.statestores=true.
    p.putAll(config.kafkaCommon());
    p.putAll(config.streamsOverrides());
    for (Fixed fixed : fixed()) {
      Object value = fixed.value().apply(config, plugins);
      if (value != null) {
        p.put(fixed.key(), value);
      }
    }
    return p;
  }
}
