package dev.turnstile.topology.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.turnstile.runtime.config.InvalidConfigurationException;
import dev.turnstile.schemas.TopicCatalogue;
import dev.turnstile.topology.TopologyApplication;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class TopologyConfigTest {

  @TempDir Path dir;

  @Test
  void theEnvironmentWinsOverTheFileAndDefaultsFillTheRest() throws IOException {
    Path file = dir.resolve("topology.properties");
    Files.writeString(
        file,
        "kafka.bootstrap.servers=file:9092\n"
            + "topology.dedup.retention-ms=86400000\n"
            + "kafka.streams.commit.interval.ms=50\n");

    TopologyConfig config =
        TopologyConfig.load(
            file,
            Map.of(
                "TURNSTILE_KAFKA_BOOTSTRAP_SERVERS", "env:9092",
                "TURNSTILE_TOPOLOGY_SESSION_REORDER_GRACE_MS", "60000",
                "TURNSTILE_KAFKA_STREAMS_METRICS_RECORDING_LEVEL", "DEBUG",
                "UNRELATED", "x"));

    assertThat(config.get(TopologyConfigModel.BOOTSTRAP_SERVERS)).isEqualTo("env:9092");
    assertThat(config.get(TopologyConfigModel.DEDUP_RETENTION)).isEqualTo(Duration.ofDays(1));
    assertThat(config.sessionPolicy().reorderGrace()).isEqualTo(Duration.ofMinutes(1));
    assertThat(config.sessionPolicy().maxSessionDuration()).isEqualTo(Duration.ofHours(72));
    assertThat(config.streamsOverrides())
        .containsEntry("commit.interval.ms", "50")
        .containsEntry("metrics.recording.level", "DEBUG");
  }

  @Test
  void theDefaultStateDirectoryIsNotOneKafkaStreamsWarnsAbout() {
    TopologyConfig config = TopologyConfig.of(Map.of("kafka.bootstrap.servers", "k:9092"));

    // Kafka Streams' StateDirectory warns at every start when state.dir starts with java.io.tmpdir.
    assertThat(config.get(TopologyConfigModel.STATE_DIR).toString())
        .doesNotStartWith(System.getProperty("java.io.tmpdir"))
        .isEqualTo(Path.of(System.getProperty("user.home"), ".turnstile", "streams").toString());
  }

  @Test
  void aBadValueIsReportedByItsKey() {
    assertThatThrownBy(
            () ->
                TopologyConfig.of(
                    Map.of(
                        "kafka.bootstrap.servers", "k:9092",
                        "topology.session.max-duration-ms", "soon")))
        .isInstanceOf(InvalidConfigurationException.class)
        .hasMessageContaining("topology.session.max-duration-ms")
        .hasMessageContaining("soon");
    assertThatThrownBy(() -> TopologyConfig.of(Map.of()))
        .hasMessageContaining("kafka.bootstrap.servers: is required");
  }

  @Test
  void secretsAreMaskedInToString() {
    TopologyConfig config =
        TopologyConfig.of(
            Map.of(
                "kafka.bootstrap.servers", "k:9092",
                "kafka.streams.sasl.jaas.config", "user=me password=hunter2"));

    assertThat(config.toString()).doesNotContain("hunter2").contains("sasl.jaas.config=[hidden]");
  }

  /**
   * Issue 8 case 9: an override that would weaken exactly-once is refused at start-up, by name,
   * whichever prefix it comes by; so is one of the producers' partitioner, which the in-place merge
   * relies on (a {@code merge-inputs.v1} record placed otherwise would split a key's patches over
   * two tasks). Each with the reason its fixed key gives.
   */
  @ParameterizedTest(name = "{0}")
  @CsvSource({
    "kafka.streams.processing.guarantee, fixed at exactly_once_v2",
    "kafka.streams.isolation.level, fixed at read_committed",
    "kafka.streams.consumer.isolation.level, fixed at read_committed",
    "kafka.streams.main.consumer.isolation.level, fixed at read_committed",
    "kafka.streams.producer.enable.idempotence, fixed at true",
    "kafka.streams.producer.acks, fixed at all",
    "kafka.isolation.level, fixed at read_committed",
    "kafka.acks, fixed at all",
    "kafka.streams.group.protocol, fixed at classic",
    "kafka.streams.application.id, set topology.application-id",
    "kafka.partitioner.class, fixed at Kafka's default",
    "kafka.partitioner.ignore.keys, fixed at Kafka's default",
    "kafka.streams.partitioner.class, fixed at Kafka's default",
    "kafka.streams.partitioner.ignore.keys, fixed at Kafka's default",
    "kafka.streams.producer.partitioner.class, fixed at Kafka's default",
    "kafka.streams.producer.partitioner.ignore.keys, fixed at Kafka's default"
  })
  void keysTurnstileFixesAreRefusedByNameWithTheirReason(String key, String reason) {
    assertThatThrownBy(
            () -> TopologyConfig.of(Map.of("kafka.bootstrap.servers", "k:9092", key, "x")))
        .isInstanceOf(InvalidConfigurationException.class)
        .hasMessageContaining(key + ": cannot be set: " + reason);
  }

  /** Every key Turnstile fixes, under both prefixes that reach Kafka Streams, is refused. */
  @Test
  void everyFixedKeyIsRefusedWithItsReason() {
    Map<String, String> refused = new java.util.TreeMap<>();
    StreamsProperties.fixedKeys().forEach((k, r) -> refused.put("kafka.streams." + k, r));
    StreamsProperties.fixedClientKeys().forEach((k, r) -> refused.put("kafka." + k, r));
    refused.forEach(
        (key, reason) ->
            assertThatThrownBy(
                    () -> TopologyConfig.of(Map.of("kafka.bootstrap.servers", "k:9092", key, "x")))
                .as(key)
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining(key + ": cannot be set: " + reason));
  }

  @Test
  void passThroughKeysAreCheckedAgainstKafkasOwnDefinitions() {
    TopologyConfig config =
        TopologyConfig.of(
            Map.of(
                "kafka.bootstrap.servers", "k:9092",
                "kafka.security.protocol", "SASL_SSL",
                "kafka.streams.main.consumer.max.poll.records", "200",
                "kafka.streams.topic.min.insync.replicas", "2",
                "kafka.streams.turnstile.rocksdb.total.bytes", "268435456"));
    assertThat(config.kafkaCommon()).containsEntry("security.protocol", "SASL_SSL");
    assertThat(config.streamsOverrides())
        .containsEntry("main.consumer.max.poll.records", "200")
        .containsEntry("turnstile.rocksdb.total.bytes", "268435456");

    assertThatThrownBy(
            () ->
                TopologyConfig.of(
                    Map.of(
                        "kafka.bootstrap.servers", "k:9092",
                        "kafka.streams.comit.interval.ms", "100",
                        "kafka.streams.turnstile.rocksdb.total.bytes", "lots")))
        .isInstanceOfSatisfying(
            InvalidConfigurationException.class,
            e ->
                assertThat(e.problems())
                    .containsExactly(
                        "kafka.streams.comit.interval.ms: not a setting of Kafka Streams, last"
                            + " word (its own keys, `producer.`/`consumer.`/`admin.`-prefixed"
                            + " client keys, `topic.` for internal topics); did you mean"
                            + " kafka.streams.commit.interval.ms?",
                        "kafka.streams.turnstile.rocksdb.total.bytes: invalid value 'lots': Not a"
                            + " number of type LONG"));
  }

  @Test
  void aGenerationRunsUnderItsOwnApplicationIdAndOutputTopics() {
    TopologyConfig config =
        TopologyConfig.of(
            Map.of(
                "kafka.bootstrap.servers", "k:9092",
                "topic.prefix", "prod.",
                "topology.generation", "g2"));

    assertThat(config.applicationId()).isEqualTo("turnstile-topology.g2");
    assertThat(config.topic(TopicCatalogue.POST_MERGE)).isEqualTo("prod.g2.post-merge.v1");
    assertThat(config.topic(TopicCatalogue.DEVICE_EVENTS_RAW))
        .isEqualTo("prod.device-events.raw.v1");
    assertThat(
            TopologyApplication.streamsProperties(config)
                .getProperty(StreamsConfig.APPLICATION_ID_CONFIG))
        .isEqualTo("turnstile-topology.g2");
  }

  @Test
  void aGenerationNameThatCannotPrefixATopicIsRefusedByItsKey() {
    for (String bad : new String[] {"G2", "g.2", "default"}) {
      assertThatThrownBy(
              () ->
                  TopologyConfig.of(
                      Map.of("kafka.bootstrap.servers", "k:9092", "topology.generation", bad)))
          .isInstanceOf(InvalidConfigurationException.class)
          .hasMessageContaining("topology.generation");
    }
  }
}
