package dev.turnstile.topology.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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
        TopologyConfig.from(
            ConfigValues.load(
                file,
                Map.of(
                    "TURNSTILE_KAFKA_BOOTSTRAP_SERVERS", "env:9092",
                    "TURNSTILE_TOPOLOGY_SESSION_REORDER_GRACE_MS", "60000",
                    "TURNSTILE_KAFKA_STREAMS_METRICS_RECORDING_LEVEL", "DEBUG",
                    "UNRELATED", "x")));

    assertThat(config.bootstrapServers()).isEqualTo("env:9092");
    assertThat(config.dedupRetention()).isEqualTo(Duration.ofDays(1));
    assertThat(config.sessionPolicy().reorderGrace()).isEqualTo(Duration.ofMinutes(1));
    assertThat(config.sessionPolicy().maxSessionDuration()).isEqualTo(Duration.ofHours(72));
    assertThat(config.streamsOverrides())
        .containsEntry("commit.interval.ms", "50")
        .containsEntry("metrics.recording.level", "DEBUG");
  }

  @Test
  void theDefaultStateDirectoryIsNotOneKafkaStreamsWarnsAbout() {
    TopologyConfig config =
        TopologyConfig.from(ConfigValues.of(Map.of("kafka.bootstrap.servers", "k:9092")));

    // Kafka Streams' StateDirectory warns at every start when state.dir starts with java.io.tmpdir.
    assertThat(config.stateDir().toString())
        .doesNotStartWith(System.getProperty("java.io.tmpdir"))
        .isEqualTo(Path.of(System.getProperty("user.home"), ".turnstile", "streams").toString());
  }

  @Test
  void aBadValueIsReportedByItsKey() {
    assertThatThrownBy(
            () ->
                TopologyConfig.from(
                    ConfigValues.of(
                        Map.of(
                            "kafka.bootstrap.servers", "k:9092",
                            "topology.session.max-duration-ms", "soon"))))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("topology.session.max-duration-ms")
        .hasMessageContaining("soon");
    assertThatThrownBy(() -> TopologyConfig.from(ConfigValues.of(Map.of())))
        .hasMessageContaining("kafka.bootstrap.servers is required");
  }

  @Test
  void secretsAreMaskedInToString() {
    TopologyConfig config =
        TopologyConfig.from(
            ConfigValues.of(
                Map.of(
                    "kafka.bootstrap.servers", "k:9092",
                    "kafka.streams.sasl.jaas.config", "user=me password=hunter2")));

    assertThat(config.toString()).doesNotContain("hunter2").contains("sasl.jaas.config=****");
  }
}
