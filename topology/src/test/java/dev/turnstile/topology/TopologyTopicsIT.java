package dev.turnstile.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.turnstile.runtime.cli.ExitCode;
import dev.turnstile.runtime.topics.TopicSpec;
import dev.turnstile.testkit.EmbeddedKafka;
import dev.turnstile.topology.config.TopologyConfig;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewPartitions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The topology process against a broker that, like Kafka's default, creates topics on first use
 * (issue 10): started before its topics exist it says which are missing and ends with exit code 3
 * instead of sitting in {@code ERROR}, creating no topic; a partition-count change of an input
 * topic while it runs makes it unready.
 */
class TopologyTopicsIT {

  static EmbeddedKafka kafka;
  @TempDir static Path stateDir;

  @BeforeAll
  static void start() {
    kafka = EmbeddedKafka.start(null, Map.of("auto.create.topics.enable", "true"));
  }

  @AfterAll
  static void stop() {
    kafka.close();
  }

  static TopologyConfig config(String prefix) {
    return config(prefix, 1500);
  }

  static TopologyConfig config(String prefix, long topicsWaitMs) {
    return TopologyConfig.of(
        Map.of(
            "kafka.bootstrap.servers",
            kafka.bootstrapServers(),
            "topic.prefix",
            prefix,
            "topology.application-id",
            prefix + "topology",
            "topology.state-dir",
            stateDir.resolve(prefix).toString(),
            "topology.num-standby-replicas",
            "0",
            "topology.http.host",
            "127.0.0.1",
            "topology.http.port",
            "0",
            "topology.topics.wait-ms",
            Long.toString(topicsWaitMs),
            "topology.topics.check-interval-ms",
            "200"));
  }

  static int status(TopologyProcess process, String path) throws Exception {
    return HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + process.healthPort() + path))
                .build(),
            HttpResponse.BodyHandlers.discarding())
        .statusCode();
  }

  static String scrape(TopologyProcess process) throws Exception {
    return HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + process.healthPort() + "/metrics"))
                .build(),
            HttpResponse.BodyHandlers.ofString())
        .body();
  }

  @Test
  void startedBeforeItsTopicsExistItEndsWithTheTopicsExitCodeAndCreatesNothing() throws Exception {
    // Long enough a wait to find it live and unready while it waits, on a loaded machine too.
    try (TopologyProcess process = TopologyProcess.start(config("absent.", 5000))) {
      assertThat(status(process, "/health/live")).isEqualTo(200);
      assertThat(status(process, "/health/ready")).isEqualTo(503);

      CompletableFuture<Integer> exit =
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  return process.awaitExit();
                } catch (InterruptedException e) {
                  throw new IllegalStateException(e);
                }
              });
      await().atMost(Duration.ofSeconds(30)).until(exit::isDone);

      assertThat(exit.get()).isEqualTo(ExitCode.TOPICS);
      assertThat(status(process, "/health/live")).as("ending on its own").isEqualTo(503);
    }
    try (Admin admin = kafka.admin()) {
      assertThat(admin.listTopics().names().get()).noneMatch(name -> name.startsWith("absent."));
    }
  }

  @Test
  void aPartitionCountChangeOfAnInputTopicMakesItUnready() throws Exception {
    kafka.createTopics(
        TopicSpec.catalogue("grown.", (short) 1).stream().map(TopicSpec::toNewTopic).toList());
    try (TopologyProcess process = TopologyProcess.start(config("grown."))) {
      await().atMost(Duration.ofSeconds(60)).until(process::isReady);
      assertThat(status(process, "/health/ready")).isEqualTo(200);

      try (Admin admin = kafka.admin()) {
        admin
            .createPartitions(Map.of("grown.device-events.raw.v1", NewPartitions.increaseTo(8)))
            .all()
            .get();
      }

      await().atMost(Duration.ofSeconds(20)).until(() -> !process.isReady());
      assertThat(status(process, "/health/ready")).isEqualTo(503);
      assertThat(status(process, "/health/live")).isEqualTo(200);
      assertThat(scrape(process))
          .contains("turnstile_topics_as_declared 0.0", "turnstile_topology_ready 0.0");
      assertThat(process.exitCodeNow()).isNull();
    }
  }
}
