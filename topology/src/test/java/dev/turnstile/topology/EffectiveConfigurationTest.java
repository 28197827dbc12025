package dev.turnstile.topology;

import static org.assertj.core.api.Assertions.assertThat;

import dev.turnstile.runtime.config.ConfigDocs;
import dev.turnstile.runtime.config.Settings;
import dev.turnstile.topology.adapter.streams.BoundedMemoryRocksDbConfig;
import dev.turnstile.topology.adapter.streams.RejectingExceptionHandler;
import dev.turnstile.topology.adapter.streams.UsableTimestampExtractor;
import dev.turnstile.topology.config.MergeSettings;
import dev.turnstile.topology.config.TopologyConfig;
import dev.turnstile.topology.config.TopologyConfigModel;
import dev.turnstile.topology.domain.session.SessionPolicy;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.StreamsConfig;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.Options;

/**
 * What the topology runs with is what its generated configuration tables say. Started from nothing
 * but the required key, and from each example file in {@code config/}, every documented key is
 * looked up where it takes effect: keys handed to Kafka Streams as Kafka Streams reads the
 * properties Turnstile gives it, the RocksDB sizes as the config setter takes them from what Kafka
 * Streams hands every store, and the rest through the accessors the topology's code calls. Each has
 * its documented default, or the value given. A key added without saying where it takes effect
 * fails the test too.
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
    Map<String, Object> effective = effective(TopologyConfig.of(settings));
    Map<String, String> documented =
        ConfigDocs.documentedDefaults(ConfigDocs.markdown(TopologyConfigModel.MODEL));
    // The one default the table cannot show, as it depends on the machine: its meaning says it.
    documented.put(
        TopologyConfigModel.STATE_DIR.name(), "`" + TopologyConfig.defaultStateDir() + "`");

    assertThat(effective.keySet())
        .as("every documented key, and only those, with where it takes effect")
        .containsExactlyInAnyOrderElementsOf(documented.keySet());
    SoftAssertions softly = new SoftAssertions();
    effective.forEach(
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
  }

  /**
   * The keys the tables list as refused hold, in Kafka Streams' own reading, what their reasons
   * say: exactly-once with its idempotent producers and read_committed consumers, the classic
   * protocol, explicit names, and the adapter's classes.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("sources")
  void theKeysTurnstileFixesHoldWhatTheirReasonsSay(
      String source, List<Path> files, Map<String, String> environment) {
    TopologyConfig config = TopologyConfig.of(TopologyConfigModel.MODEL.load(files, environment));
    StreamsConfig streams = new StreamsConfig(TopologyApplication.streamsProperties(config));

    assertThat(streams.getString(StreamsConfig.PROCESSING_GUARANTEE_CONFIG))
        .isEqualTo(StreamsConfig.EXACTLY_ONCE_V2);
    assertThat(streams.getProducerConfigs("client"))
        .containsEntry(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true)
        .doesNotContainKeys(
            ProducerConfig.PARTITIONER_CLASS_CONFIG, ProducerConfig.PARTITIONER_IGNORE_KEYS_CONFIG);
    assertThat(streams.getMainConsumerConfigs("group", "client", 0))
        .containsEntry(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    assertThat(streams.getString(StreamsConfig.GROUP_PROTOCOL_CONFIG)).isEqualTo("classic");
    assertThat(streams.getBoolean(StreamsConfig.ENSURE_EXPLICIT_INTERNAL_RESOURCE_NAMING_CONFIG))
        .isTrue();
    assertThat(streams.getClass(StreamsConfig.ROCKSDB_CONFIG_SETTER_CLASS_CONFIG))
        .isEqualTo(BoundedMemoryRocksDbConfig.class);
    assertThat(streams.getClass(StreamsConfig.PROCESSING_EXCEPTION_HANDLER_CLASS_CONFIG))
        .isEqualTo(RejectingExceptionHandler.class);
    assertThat(streams.getClass(StreamsConfig.DEFAULT_TIMESTAMP_EXTRACTOR_CLASS_CONFIG))
        .isEqualTo(UsableTimestampExtractor.class);
  }

  /** Each documented key with the value that arrives where it takes effect. */
  static Map<String, Object> effective(TopologyConfig config) {
    StreamsConfig streams = new StreamsConfig(TopologyApplication.streamsProperties(config));
    // What Kafka Streams hands a RocksDBConfigSetter: its appConfigs(), originals then values.
    Map<String, Object> appConfigs = new HashMap<>(streams.originals());
    appConfigs.putAll(streams.values());
    BoundedMemoryRocksDbConfig.Budget rocksDb = BoundedMemoryRocksDbConfig.Budget.of(appConfigs);
    SessionPolicy session = config.sessionPolicy();
    MergeSettings merge = config.merge();
    Map<String, Object> effective = new TreeMap<>();
    effective.put(
        "kafka.bootstrap.servers",
        String.join(",", streams.getList(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG)));
    effective.put("topic.prefix", config.get(TopologyConfigModel.TOPIC_PREFIX));
    effective.put(
        "topology.application-id", streams.getString(StreamsConfig.APPLICATION_ID_CONFIG));
    // The generation takes effect in the names of the topics the topology writes.
    String sessions = config.topic(dev.turnstile.schemas.TopicCatalogue.DEVICE_SESSIONS);
    String generation =
        sessions.substring(
            config.get(TopologyConfigModel.TOPIC_PREFIX).length(),
            sessions.length()
                - dev.turnstile.schemas.TopicCatalogue.DEVICE_SESSIONS.baseName().length());
    effective.put(
        "topology.generation",
        generation.isEmpty() ? "" : generation.substring(0, generation.length() - 1));
    effective.put("topology.state-dir", streams.getString(StreamsConfig.STATE_DIR_CONFIG));
    effective.put(
        "topology.dedup.retention-ms", config.get(TopologyConfigModel.DEDUP_RETENTION).toMillis());
    effective.put("topology.session.reorder-grace-ms", session.reorderGrace().toMillis());
    effective.put("topology.session.max-duration-ms", session.maxSessionDuration().toMillis());
    effective.put("topology.session.max-held-finishes", session.maxHeldFinishesPerDevice());
    effective.put(
        "topology.session.ended-retention-ms", session.endedSessionRetention().toMillis());
    effective.put(
        "topology.session.max-state-bytes",
        config.get(TopologyConfigModel.SESSION_MAX_STATE_BYTES));
    effective.put(
        "topology.punctuate-interval-ms",
        config.get(TopologyConfigModel.PUNCTUATE_INTERVAL).toMillis());
    effective.put(
        "topology.max-due-per-punctuation",
        config.get(TopologyConfigModel.MAX_DUE_PER_PUNCTUATION));
    effective.put(
        "topology.num-stream-threads", streams.getInt(StreamsConfig.NUM_STREAM_THREADS_CONFIG));
    effective.put(
        "topology.num-standby-replicas", streams.getInt(StreamsConfig.NUM_STANDBY_REPLICAS_CONFIG));
    effective.put("topology.http.host", config.get(TopologyConfigModel.HTTP_HOST));
    effective.put("topology.http.port", config.get(TopologyConfigModel.HTTP_PORT));
    effective.put(
        "topology.query.advertised-server",
        config.get(TopologyConfigModel.QUERY_ADVERTISED_SERVER).orElse(null));
    effective.put(
        "topology.query.standby-max-lag-records",
        config.get(TopologyConfigModel.QUERY_STANDBY_MAX_LAG_RECORDS));
    effective.put(
        "topology.query.forward-timeout-ms",
        config.get(TopologyConfigModel.QUERY_FORWARD_TIMEOUT).toMillis());
    effective.put(
        "topology.topics.wait-ms", config.get(TopologyConfigModel.TOPICS_WAIT).toMillis());
    effective.put(
        "topology.topics.check-interval-ms",
        config.get(TopologyConfigModel.TOPICS_CHECK_INTERVAL).toMillis());
    effective.put("topology.merge.servicebus.key-property", merge.keyProperty());
    effective.put(
        "topology.merge.servicebus.key-pointer",
        merge.keyPointer().map(Object::toString).orElse(null));
    effective.put(
        "topology.merge.servicebus.version-property", merge.versionProperty().orElse(null));
    effective.put(
        "topology.merge.servicebus.version-pointer",
        merge.versionPointer().map(Object::toString).orElse(null));
    effective.put("topology.merge.sessions.enabled", merge.sessionsEnabled());
    effective.put("topology.merge.max-document-bytes", merge.maxDocumentBytes());
    effective.put("topology.merge.max-patches", merge.maxPatches());
    effective.put("topology.merge.retention-ms", merge.retention().toMillis());
    // What one of Kafka Streams' producers is given (Kafka Streams adds the serializers).
    Map<String, Object> producer = new HashMap<>(streams.getProducerConfigs("p"));
    producer.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    producer.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    effective.put(
        "kafka.streams.producer.batch.size",
        new ProducerConfig(producer).getInt(ProducerConfig.BATCH_SIZE_CONFIG));
    String rocksDbKeys = "kafka.streams.turnstile.rocksdb.";
    effective.put(rocksDbKeys + "total.bytes", rocksDb.totalBytes());
    effective.put(rocksDbKeys + "memtable.fraction", rocksDb.memtableFraction());
    effective.put(rocksDbKeys + "write.buffer.bytes", rocksDb.writeBufferBytes());
    // Compression takes effect on the options a store opens with.
    try (Options options = new Options()) {
      options.setTableFormatConfig(new BlockBasedTableConfig());
      new BoundedMemoryRocksDbConfig().setConfig("a-store", options, appConfigs);
      String library = options.compressionType().getLibraryName();
      effective.put(rocksDbKeys + "compression", library == null ? "none" : library);
    }
    return effective;
  }
}
