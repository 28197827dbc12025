package dev.turnstile.topology;

import static org.assertj.core.api.Assertions.assertThat;

import dev.turnstile.runtime.config.ConfigDocs;
import dev.turnstile.runtime.config.Settings;
import dev.turnstile.topology.adapter.streams.BoundedMemoryRocksDbConfig;
import dev.turnstile.topology.config.ConfigValues;
import dev.turnstile.topology.config.TopologyConfig;
import dev.turnstile.topology.config.TopologyConfigModel;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.kafka.streams.StreamsConfig;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What the topology runs with is what its generated configuration tables say: started from nothing
 * but the required key, and from each example file in {@code config/}, every documented key that
 * reaches Kafka Streams or RocksDB arrives there with its documented default, or with the value
 * given.
 */
class EffectiveConfigurationTest {

  static final Path CONFIG = Path.of("..", "config").toAbsolutePath().normalize();

  static Stream<Arguments> sources() {
    return Stream.of(
        Arguments.of(
            "nothing but the bootstrap servers",
            List.of(),
            Map.of("TURNSTILE_KAFKA_BOOTSTRAP_SERVERS", "k:9092")),
        Arguments.of(
            "config/topology.properties", List.of(CONFIG.resolve("topology.properties")), Map.of()),
        Arguments.of(
            "config/topology.properties and config/kafka-sasl-ssl.properties",
            List.of(
                CONFIG.resolve("topology.properties"), CONFIG.resolve("kafka-sasl-ssl.properties")),
            Map.of()));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("sources")
  void everyDocumentedKeyTakesEffectWithItsDocumentedDefaultOrTheValueGiven(
      String source, List<Path> files, Map<String, String> environment) {
    Settings settings = TopologyConfigModel.MODEL.load(files, environment);
    TopologyConfig config = TopologyConfig.from(ConfigValues.of(settings));
    Map<String, String> documented =
        ConfigDocs.documentedDefaults(ConfigDocs.markdown(TopologyConfigModel.MODEL));

    SoftAssertions softly = new SoftAssertions();
    effective(config).forEach(
        (key, applied) -> {
          var definition = TopologyConfigModel.MODEL.keys().configKeys().get(key);
          String expected =
              settings.isSet(key)
                  ? ConfigDocs.cell(definition, settings.get(key))
                  : documented.get(key);
          softly
              .assertThat(ConfigDocs.cell(definition, applied))
              .as("%s, from %s", key, source)
              .isEqualTo(expected);
        });
    softly.assertAll();
    assertThat(documented).containsKeys(effective(config).keySet().toArray(String[]::new));
  }

  /**
   * Each documented key that reaches Kafka Streams or RocksDB, with the value that arrives there:
   * Kafka Streams' own reading of the properties Turnstile gives it, and the sizes the RocksDB
   * config setter takes from the configuration Kafka Streams hands every store.
   */
  static Map<String, Object> effective(TopologyConfig config) {
    StreamsConfig streams = new StreamsConfig(TopologyApplication.streamsProperties(config));
    Map<String, Object> appConfigs = new HashMap<>(streams.originals());
    appConfigs.putAll(streams.values());
    BoundedMemoryRocksDbConfig.Budget rocksDb = BoundedMemoryRocksDbConfig.Budget.of(appConfigs);
    String statePrefix = "kafka.streams.turnstile.rocksdb.";
    Map<String, Object> effective = new TreeMap<>();
    effective.put(
        "kafka.bootstrap.servers",
        String.join(",", streams.getList(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG)));
    effective.put(
        "topology.application-id", streams.getString(StreamsConfig.APPLICATION_ID_CONFIG));
    effective.put(
        "topology.num-stream-threads", streams.getInt(StreamsConfig.NUM_STREAM_THREADS_CONFIG));
    effective.put(
        "topology.num-standby-replicas", streams.getInt(StreamsConfig.NUM_STANDBY_REPLICAS_CONFIG));
    effective.put(statePrefix + "total.bytes", rocksDb.totalBytes());
    effective.put(statePrefix + "memtable.fraction", rocksDb.memtableFraction());
    effective.put(statePrefix + "write.buffer.bytes", rocksDb.writeBufferBytes());
    return effective;
  }
}
