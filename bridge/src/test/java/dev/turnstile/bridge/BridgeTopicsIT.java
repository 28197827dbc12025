package dev.turnstile.bridge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.turnstile.bridge.config.BridgeConfigLoader;
import dev.turnstile.runtime.topics.TopicSpec;
import dev.turnstile.testkit.EmbeddedKafka;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewPartitions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The failures a standalone broker showed (issue 10), against a broker that, like Kafka's default,
 * creates a topic on a client's first use: the bridge must neither report ready nor write before
 * its topics exist as the catalogue declares them, must notice a partition-count change, and must
 * not answer {@code 200 duplicate} for a record that went with a deleted topic. Each test uses its
 * own topic prefix.
 */
class BridgeTopicsIT {

  static final HttpClient HTTP = HttpClient.newHttpClient();
  static EmbeddedKafka kafka;

  @BeforeAll
  static void start() {
    kafka = EmbeddedKafka.start(null, Map.of("auto.create.topics.enable", "true"));
  }

  @AfterAll
  static void stop() {
    kafka.close();
  }

  static BridgeApplication bridge(String prefix) {
    return BridgeApplication.start(
        BridgeConfigLoader.fromMap(
            Map.of(
                "kafka.bootstrap.servers", kafka.bootstrapServers(),
                "bridge.auth.enabled", "false", // not about authentication
                "topic.prefix", prefix,
                "bridge.http.host", "127.0.0.1",
                "bridge.http.port", "0",
                "bridge.kafka.readiness-interval-ms", "200",
                "bridge.kafka.ack-timeout-ms", "2000",
                "bridge.shutdown-timeout-ms", "1000")));
  }

  static void createCatalogueTopics(String prefix) {
    kafka.createTopics(
        TopicSpec.catalogue(prefix, (short) 1).stream().map(TopicSpec::toNewTopic).toList());
  }

  static Set<String> topics() throws Exception {
    try (Admin admin = kafka.admin()) {
      return admin.listTopics().names().get();
    }
  }

  static HttpResponse<String> ready(BridgeApplication bridge) throws Exception {
    return HTTP.send(
        HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + bridge.httpPort() + "/health/ready"))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /** A just-created topic's metadata reaches the broker a moment after the create returns. */
  static void awaitReady(BridgeApplication bridge) {
    await().atMost(Duration.ofSeconds(20)).until(() -> ready(bridge).statusCode() == 200);
  }

  static HttpResponse<String> post(BridgeApplication bridge, String eventId) throws Exception {
    String body =
        "{\"eventId\":\""
            + eventId
            + "\",\"type\":\"Started\",\"occurredAt\":\"2024-05-01T08:00:00Z\"}";
    return HTTP.send(
        HttpRequest.newBuilder(
                URI.create(
                    "http://127.0.0.1:" + bridge.httpPort() + "/api/v1/devices/station-1/events"))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void beforeItsTopicsExistTheBridgeIsNotReadyAndCreatesNoTopicByWriting() throws Exception {
    try (BridgeApplication bridge = bridge("missing.")) {
      assertThat(ready(bridge).statusCode()).isEqualTo(503);
      HttpResponse<String> refused = post(bridge, "e-1");

      assertThat(refused.statusCode()).isEqualTo(503);
      assertThat(refused.headers().firstValue("Retry-After")).isPresent();
      assertThat(topics()).noneMatch(name -> name.startsWith("missing."));

      createCatalogueTopics("missing.");
      awaitReady(bridge);
      assertThat(post(bridge, "e-1").statusCode()).isEqualTo(202);
    }
  }

  @Test
  void aPartitionCountChangeMakesTheBridgeUnreadyAndStopsItsWrites() throws Exception {
    createCatalogueTopics("grown.");
    try (BridgeApplication bridge = bridge("grown.")) {
      awaitReady(bridge);
      assertThat(post(bridge, "e-1").statusCode()).isEqualTo(202);

      try (Admin admin = kafka.admin()) {
        admin
            .createPartitions(Map.of("grown.device-events.raw.v1", NewPartitions.increaseTo(12)))
            .all()
            .get();
      }

      await().atMost(Duration.ofSeconds(20)).until(() -> ready(bridge).statusCode() == 503);
      HttpResponse<String> refused = post(bridge, "e-2");
      assertThat(refused.statusCode()).isEqualTo(503);
      assertThat(bridge.meterRegistry().get("turnstile.topics.as.declared").gauge().value())
          .isZero();
    }
  }

  @Test
  void anEventWhoseRecordWentWithARecreatedTopicIsWrittenAgainNotAnsweredDuplicate()
      throws Exception {
    createCatalogueTopics("recreated.");
    try (BridgeApplication bridge = bridge("recreated.")) {
      awaitReady(bridge);
      assertThat(post(bridge, "e-1").statusCode()).isEqualTo(202);
      assertThat(post(bridge, "e-1").statusCode()).isEqualTo(200);

      try (Admin admin = kafka.admin()) {
        admin.deleteTopics(List.of("recreated.device-events.raw.v1")).all().get();
      }
      await()
          .atMost(Duration.ofSeconds(20))
          .until(() -> !topics().contains("recreated.device-events.raw.v1"));
      createCatalogueTopics("recreated.");
      awaitReady(bridge);

      await()
          .atMost(Duration.ofSeconds(20))
          .until(() -> post(bridge, "e-1").statusCode(), code -> code == 202);
    }
  }
}
