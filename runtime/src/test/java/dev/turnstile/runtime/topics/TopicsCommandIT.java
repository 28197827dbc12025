package dev.turnstile.runtime.topics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.turnstile.runtime.cli.ExitCode;
import dev.turnstile.schemas.TopicCatalogue;
import dev.turnstile.testkit.EmbeddedKafka;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code turnstile topics} against a real single-broker cluster; each test uses its own prefix. */
class TopicsCommandIT {

  static EmbeddedKafka kafka;

  @BeforeAll
  static void start() {
    kafka = EmbeddedKafka.start(null);
  }

  @AfterAll
  static void stop() {
    kafka.close();
  }

  record Run(int exitCode, String out, String err) {}

  static Run run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = TopicsCommand.execute(new PrintWriter(out, true), new PrintWriter(err, true), args);
    return new Run(code, out.toString(), err.toString());
  }

  static Map<String, ObservedTopic> describe(String prefix) throws Exception {
    try (Admin admin = kafka.admin()) {
      return ClusterTopics.describe(
          admin,
          TopicSpec.catalogue(prefix, (short) 1).stream().map(TopicSpec::name).toList(),
          Duration.ofSeconds(10));
    }
  }

  /** Metadata of a just-created topic reaches the broker a moment after the create returns. */
  static Map<String, ObservedTopic> describeAll(String prefix) {
    return await()
        .atMost(Duration.ofSeconds(15))
        .until(() -> describe(prefix), topics -> topics.size() == TopicCatalogue.ALL.size());
  }

  @Test
  void createsEveryCatalogueTopicOnceAndThenFindsThemAsDeclared() throws Exception {
    Run first = run("--bootstrap", kafka.bootstrapServers(), "--prefix", "a.", "--replicas", "1");

    assertThat(first.exitCode()).as(first.err()).isEqualTo(ExitCode.OK);
    assertThat(first.out()).contains("created  a.device-events.raw.v1");
    Map<String, ObservedTopic> topics = describeAll("a.");
    ObservedTopic raw = topics.get("a.device-events.raw.v1");
    assertThat(raw.partitions()).isEqualTo(6);
    assertThat(raw.configs())
        .containsEntry("retention.ms", "1209600000")
        .containsEntry("cleanup.policy", "delete");
    assertThat(topics.get("a.rejected-events.v1").partitions()).isEqualTo(3);

    Run again = run("--bootstrap", kafka.bootstrapServers(), "--prefix", "a.", "--replicas", "1");
    assertThat(again.exitCode()).isEqualTo(ExitCode.OK);
    assertThat(again.out()).doesNotContain("created").contains("ok            a.post-merge.v1");
    assertThat(describe("a.").get("a.device-events.raw.v1").topicId()).isEqualTo(raw.topicId());
  }

  @Test
  void checkAndDryRunChangeNothing() throws Exception {
    Run check = run("--bootstrap", kafka.bootstrapServers(), "--prefix", "b.", "--check");
    assertThat(check.exitCode()).isEqualTo(ExitCode.TOPICS);
    assertThat(check.out()).contains("DRIFT         b.device-events.raw.v1: missing");

    Run dryRun =
        run(
            "--bootstrap",
            kafka.bootstrapServers(),
            "--prefix",
            "b.",
            "--replicas",
            "1",
            "--dry-run");
    assertThat(dryRun.exitCode()).as(dryRun.err()).isEqualTo(ExitCode.OK);
    assertThat(dryRun.out()).contains("would create  b.merge-results.v1");

    assertThat(describe("b.")).isEmpty();
  }

  @Test
  void reportsPartitionAndConfigDriftOfExistingTopicsAndLeavesThemAlone() throws Exception {
    try (Admin admin = kafka.admin()) {
      admin
          .createTopics(
              List.of(
                  new NewTopic("c.device-events.raw.v1", 1, (short) 1)
                      .configs(Map.of("retention.ms", "604800000"))))
          .all()
          .get();
    }
    // Metadata of the topic just created reaches the broker's cache a moment later.
    await()
        .atMost(Duration.ofSeconds(15))
        .until(() -> describe("c.").containsKey("c.device-events.raw.v1"));

    Run run = run("--bootstrap", kafka.bootstrapServers(), "--prefix", "c.", "--replicas", "1");

    assertThat(run.exitCode()).isEqualTo(ExitCode.TOPICS);
    assertThat(run.out())
        .contains(
            "c.device-events.raw.v1: partitions is 1, the catalogue declares 6",
            "c.device-events.raw.v1: retention.ms is 604800000, the catalogue declares 1209600000",
            "created  c.device-sessions.v1");
    assertThat(describe("c.").get("c.device-events.raw.v1").partitions()).isEqualTo(1);
  }

  @Test
  void aReplicationFactorTheClusterCannotHoldIsAFailureNotDrift() throws Exception {
    Run run = run("--bootstrap", kafka.bootstrapServers(), "--prefix", "d.", "--dry-run");

    assertThat(run.exitCode()).isEqualTo(ExitCode.FAILURE);
    assertThat(run.err()).contains("Kafka refused").containsIgnoringCase("replication factor");
  }

  @Test
  void readsBootstrapAndPrefixFromAProcessConfigFile(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("bridge.properties");
    Files.writeString(
        file,
        "kafka.bootstrap.servers="
            + kafka.bootstrapServers()
            + "\ntopic.prefix=e.\nbridge.http.port=8080\nkafka.producer.linger.ms=5\n");

    Run run = run("--config", file.toString(), "--replicas", "1");

    assertThat(run.exitCode()).as(run.err()).isEqualTo(ExitCode.OK);
    assertThat(describeAll("e.")).hasSize(TopicCatalogue.ALL.size());
  }

  @Test
  void usageErrorsExitTwoAndHelpExitsZero() {
    assertThat(run("--replicas", "1").exitCode()).isEqualTo(ExitCode.CONFIG);
    assertThat(run("--bootstrap", "x:1", "--check", "--dry-run").exitCode())
        .isEqualTo(ExitCode.CONFIG);
    Run help = run("--help");
    assertThat(help.exitCode()).isEqualTo(ExitCode.OK);
    assertThat(help.out()).startsWith("Usage: turnstile topics").doesNotContain("dev.turnstile");
  }

  @Test
  void aGenerationGetsItsOwnOutputsBesideTheSharedRawTopics() {
    Run created =
        run(
            "--bootstrap",
            kafka.bootstrapServers(),
            "--prefix",
            "g.",
            "--generation",
            "g2",
            "--replicas",
            "1");

    assertThat(created.exitCode()).as(created.err()).isEqualTo(ExitCode.OK);
    assertThat(created.out())
        .contains("created  g.device-events.raw.v1")
        .contains("created  g.g2.device-sessions.v1")
        .contains("created  g.g2.merge-inputs.v1")
        .doesNotContain("g.g2.device-events.raw.v1")
        .doesNotContain("created  g.device-sessions.v1");
    Run refused = run("--bootstrap", kafka.bootstrapServers(), "--generation", "G.2");
    assertThat(refused.exitCode()).isEqualTo(ExitCode.CONFIG);
    assertThat(refused.err()).contains("--generation");
  }

  @Test
  void theCheckSaysHowMuchHistoryTheRawTopicsHoldAndWarnsWhenSomeIsGone() throws Exception {
    assertThat(
            run("--bootstrap", kafka.bootstrapServers(), "--prefix", "h.", "--replicas", "1")
                .exitCode())
        .isEqualTo(ExitCode.OK);
    describeAll("h.");
    long oldest = 1_416_354_026_000L;
    try (var producer =
        new org.apache.kafka.clients.producer.KafkaProducer<String, String>(
            Map.of("bootstrap.servers", kafka.bootstrapServers()),
            new org.apache.kafka.common.serialization.StringSerializer(),
            new org.apache.kafka.common.serialization.StringSerializer())) {
      for (int i = 0; i < 4; i++) {
        producer
            .send(
                new org.apache.kafka.clients.producer.ProducerRecord<>(
                    "h.device-events.raw.v1", 0, oldest + i * 1000L, "st-1", "event-" + i))
            .get();
      }
    }

    Run complete =
        run(
            "--bootstrap",
            kafka.bootstrapServers(),
            "--prefix",
            "h.",
            "--check",
            "--replicas",
            "1");
    assertThat(complete.exitCode()).as(complete.out()).isEqualTo(ExitCode.OK);
    assertThat(complete.out())
        .contains("history       h.device-events.raw.v1: retention.ms 1209600000 (PT336H)")
        .contains("oldest retained record 2014-11-18T23:40:26Z; 4 offsets retained")
        .contains("history       h.servicebus-messages.raw.v1:")
        .doesNotContain("WARNING");

    try (Admin admin = kafka.admin()) {
      admin
          .deleteRecords(
              Map.of(
                  new org.apache.kafka.common.TopicPartition("h.device-events.raw.v1", 0),
                  org.apache.kafka.clients.admin.RecordsToDelete.beforeOffset(3)))
          .all()
          .get();
    }
    Run truncated =
        run(
            "--bootstrap",
            kafka.bootstrapServers(),
            "--prefix",
            "h.",
            "--check",
            "--replicas",
            "1");
    assertThat(truncated.exitCode()).isEqualTo(ExitCode.OK);
    assertThat(truncated.out())
        .contains("oldest retained record 2014-11-18T23:40:29Z; 1 offsets retained, 3 offsets")
        .contains(
            "WARNING       h.device-events.raw.v1: 3 offsets are deleted already (retention.ms);"
                + " a generation started now begins at its oldest retained record,"
                + " 2014-11-18T23:40:29Z");
  }
}
