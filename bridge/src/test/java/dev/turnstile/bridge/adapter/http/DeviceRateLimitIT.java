package dev.turnstile.bridge.adapter.http;

import static dev.turnstile.bridge.adapter.http.DeviceTraffic.event;
import static dev.turnstile.bridge.adapter.http.DeviceTraffic.problem;
import static org.assertj.core.api.Assertions.assertThat;

import dev.turnstile.bridge.BridgeApplication;
import dev.turnstile.bridge.application.auth.DeviceCredential;
import dev.turnstile.bridge.application.auth.DeviceCredential.Issued;
import dev.turnstile.bridge.config.BridgeConfigLoader;
import dev.turnstile.runtime.topics.TopicSpec;
import dev.turnstile.schemas.TopicCatalogue;
import dev.turnstile.testkit.EmbeddedKafka;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Per-device rate limits over real HTTP against a real in-process Kafka: a device flooding the
 * bridge gets 429 with Retry-After once its bucket is empty, nothing of what was refused is
 * written, and another device sending meanwhile is still let in.
 */
class DeviceRateLimitIT {

  private static final String PREFIX = "rate.";
  private static final int RATE = 2;
  private static final int BURST = 5;
  private static final int FLOOD = 200;
  private static final Issued FLEET = DeviceCredential.issue("*");

  @TempDir static Path dir;
  private static EmbeddedKafka kafka;
  private static BridgeApplication bridge;
  private static DeviceTraffic traffic;

  @BeforeAll
  static void start() throws Exception {
    kafka = EmbeddedKafka.start(null);
    kafka.createTopics(
        List.of(TopicSpec.of(TopicCatalogue.DEVICE_EVENTS_RAW, PREFIX, (short) 1).toNewTopic()));
    Path credentials = dir.resolve("device-credentials");
    Files.write(credentials, List.of(FLEET.credential().line()));
    bridge =
        BridgeApplication.start(
            BridgeConfigLoader.fromMap(
                Map.of(
                    "kafka.bootstrap.servers",
                    kafka.bootstrapServers(),
                    "topic.prefix",
                    PREFIX,
                    "bridge.http.host",
                    "127.0.0.1",
                    "bridge.http.port",
                    "0",
                    "bridge.kafka.readiness-interval-ms",
                    "200",
                    "bridge.auth.credentials-file",
                    credentials.toString(),
                    "bridge.rate-limit.requests-per-second",
                    Integer.toString(RATE),
                    "bridge.rate-limit.burst",
                    Integer.toString(BURST))));
    traffic =
        new DeviceTraffic(
            kafka.bootstrapServers(),
            TopicCatalogue.DEVICE_EVENTS_RAW.name(PREFIX),
            () -> bridge.httpPort());
  }

  @AfterAll
  static void stop() {
    for (AutoCloseable closeable : new AutoCloseable[] {traffic, bridge, kafka}) {
      try {
        if (closeable != null) {
          closeable.close();
        }
      } catch (Exception e) {
        // the others still close
      }
    }
  }

  @Test
  void aFloodingDeviceGets429WhileAnotherDeviceIsStillLetIn() throws Exception {
    String authorization = "Bearer " + FLEET.token();
    double before = traffic.rejected("rate-limited");
    double quietMillis = averageMillis("quiet", authorization).average();

    long floodStarted = System.nanoTime();
    List<CompletableFuture<HttpResponse<String>>> flood = new ArrayList<>();
    for (int i = 0; i < FLOOD; i++) {
      flood.add(
          DeviceTraffic.HTTP.sendAsync(
              HttpRequest.newBuilder(traffic.uri("/api/v1/devices/flood/events"))
                  .timeout(Duration.ofSeconds(20))
                  .header("Content-Type", "application/json")
                  .header("Authorization", authorization)
                  .POST(BodyPublishers.ofString(event("flood-" + i)))
                  .build(),
              BodyHandlers.ofString()));
    }
    Timed calm = averageMillis("calm", authorization);
    List<HttpResponse<String>> answers = flood.stream().map(CompletableFuture::join).toList();
    double floodSeconds = (System.nanoTime() - floodStarted) / 1e9;

    assertThat(calm.statuses()).as("the other device, during the flood").containsOnly(202);
    List<HttpResponse<String>> limited =
        answers.stream().filter(r -> r.statusCode() == 429).toList();
    List<String> accepted =
        answers.stream()
            .filter(r -> r.statusCode() == 202)
            .map(r -> r.body().replaceAll(".*\"eventId\":\"([^\"]+)\".*", "$1"))
            .toList();
    assertThat(limited.size() + accepted.size()).isEqualTo(FLOOD);
    // The bucket holds BURST and refills at RATE per second while the flood lasts.
    assertThat(accepted.size()).isBetween(BURST, BURST + (int) Math.ceil(RATE * floodSeconds));
    HttpResponse<String> one = limited.get(0);
    assertThat(problem(one, 429)).isEqualTo("rate-limited");
    assertThat(one.headers().firstValue("Retry-After").map(Integer::parseInt))
        .hasValueSatisfying(seconds -> assertThat(seconds).isBetween(1, 1 + 1 / RATE));
    assertThat(traffic.rejected("rate-limited") - before).isEqualTo(limited.size());
    // A measurement, not a check (timings are for benchmarks): the other device's requests
    // before and during the flood.
    System.out.printf(
        "rate limit: %d of %d flood requests refused 429 in %.2f s; another device's requests"
            + " took %.1f ms on average during the flood, %.1f ms before it%n",
        limited.size(), FLOOD, floodSeconds, calm.average(), quietMillis);

    List<String> written = traffic.eventIdsWrittenFor("flood", "flood-sentinel", authorization);
    assertThat(written.stream().filter(id -> !id.equals("flood-sentinel")).toList())
        .as("only what was answered 202 is written")
        .containsExactlyInAnyOrderElementsOf(accepted);
  }

  private record Timed(List<Integer> statuses, double average) {}

  /** {@link #BURST} requests of one device, one after the other: their statuses, mean time. */
  private static Timed averageMillis(String deviceId, String authorization) throws Exception {
    List<Integer> statuses = new ArrayList<>();
    long nanos = 0;
    for (int i = 0; i < BURST; i++) {
      long started = System.nanoTime();
      statuses.add(
          traffic
              .post(
                  "/api/v1/devices/" + deviceId + "/events",
                  event(deviceId + "-" + i),
                  authorization)
              .statusCode());
      nanos += System.nanoTime() - started;
    }
    assertThat(statuses).as(deviceId).containsOnly(202);
    return new Timed(statuses, nanos / 1e6 / BURST);
  }
}
