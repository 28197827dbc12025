package dev.turnstile.bridge.adapter.http;

import static dev.turnstile.bridge.adapter.http.DeviceTraffic.batch;
import static dev.turnstile.bridge.adapter.http.DeviceTraffic.event;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.turnstile.bridge.BridgeApplication;
import dev.turnstile.bridge.application.auth.DeviceCredential;
import dev.turnstile.bridge.application.auth.DeviceCredential.Issued;
import dev.turnstile.bridge.config.BridgeConfigLoader;
import dev.turnstile.runtime.topics.TopicSpec;
import dev.turnstile.schemas.ApiDocument;
import dev.turnstile.schemas.TopicCatalogue;
import dev.turnstile.testkit.EmbeddedKafka;
import dev.turnstile.testkit.openapi.OpenApiCheck;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer.OrderAnnotation;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * The bridge's OpenAPI document ({@code bridge.v1.openapi.yaml}) is true of the running bridge:
 * real answers over loopback HTTP, from a bridge on a real in-process broker with device
 * authentication on, are checked against it by vertx-openapi's validator ({@link OpenApiCheck}):
 * every status the bridge can be made to give here, its headers and its body. The document lists
 * exactly the routes the bridge's router has, so a new endpoint without a description fails. The
 * broker is stopped last, for the 503s.
 */
@TestMethodOrder(OrderAnnotation.class)
class OpenApiContractIT {

  private static final String PREFIX = "openapi.";
  private static final Issued EVERY_DEVICE = DeviceCredential.issue("*");
  private static final Issued STATION_1 = DeviceCredential.issue("station-1");
  private static final int BURST = 3;

  @TempDir static Path dir;
  private static EmbeddedKafka kafka;
  private static BridgeApplication bridge;
  private static OpenApiCheck contract;

  @BeforeAll
  static void start() throws Exception {
    contract =
        OpenApiCheck.load(
            "dev/turnstile/schemas/",
            "https://turnstile.dev/schemas/",
            ApiDocument.BRIDGE.fileName());
    kafka = EmbeddedKafka.start(null);
    kafka.createTopics(
        List.of(TopicSpec.of(TopicCatalogue.DEVICE_EVENTS_RAW, PREFIX, (short) 1).toNewTopic()));
    Path credentials = dir.resolve("device-credentials");
    Files.write(
        credentials, List.of(EVERY_DEVICE.credential().line(), STATION_1.credential().line()));
    Map<String, String> config = new LinkedHashMap<>();
    config.put("kafka.bootstrap.servers", kafka.bootstrapServers());
    config.put("topic.prefix", PREFIX);
    config.put("bridge.http.host", "127.0.0.1");
    config.put("bridge.http.port", "0");
    config.put("bridge.http.body-limit-bytes", "4096");
    config.put("bridge.http.batch.max-events", "5");
    config.put("bridge.http.body-timeout-ms", "500");
    config.put("bridge.kafka.readiness-interval-ms", "200");
    config.put("bridge.kafka.ack-timeout-ms", "2000");
    config.put("bridge.auth.credentials-file", credentials.toString());
    config.put("bridge.rate-limit.burst", Integer.toString(BURST));
    config.put("bridge.rate-limit.requests-per-second", "1");
    bridge = BridgeApplication.start(BridgeConfigLoader.fromMap(config));
    // Before it has seen its topic, and while its producer's first write takes longer than the
    // ack timeout (a loaded machine), the bridge answers 503: not what the first tests ask. A
    // device of its own resends until written, once a second (its rate limit refills at 1/s).
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> send(request("/health/ready").GET()).statusCode() == 200);
    await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(1100))
        .until(
            () -> post(events("warm-up"), event("w-1"), bearer(EVERY_DEVICE)).statusCode() < 300);
  }

  @AfterAll
  static void stop() {
    for (AutoCloseable closeable : new AutoCloseable[] {bridge, kafka, contract}) {
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
  @Order(1)
  void theDocumentDescribesEveryRouteOfTheBridgeAndNoOther() {
    assertThat(contract.operations()).containsExactlyElementsOf(bridge.httpRoutes());
  }

  @Test
  @Order(2)
  void singleEventAnswers() throws Exception {
    String path = "/api/v1/devices/station-1/events";
    assertThat(post(path, event("one-1"), bearer(STATION_1)).statusCode()).isEqualTo(202);
    assertThat(post(path, event("one-1"), bearer(STATION_1)).statusCode()).isEqualTo(200);
    String changed = event("one-1").replace("Started", "Finished");
    assertThat(new String(post(path, changed, bearer(STATION_1)).body(), StandardCharsets.UTF_8))
        .as("a duplicate whose content differs")
        .contains("\"conflict\":true");
  }

  @Test
  @Order(3)
  void batchAnswers() throws Exception {
    String path = "/api/v1/devices/batcher/events:batch";
    String mixed =
        "["
            + event("b-1")
            + ",{\"eventId\":\"b-2\",\"type\":\"Started\",\"occurredAt\":\"yesterday\"},"
            + event("b-1")
            + ",{\"type\":\"Finished\"}]";
    HttpResponse<byte[]> results = post(path, mixed, bearer(EVERY_DEVICE));
    assertThat(results.statusCode()).isEqualTo(200);
    assertThat(new String(results.body(), StandardCharsets.UTF_8))
        .contains("\"accepted\"", "\"duplicate\"", "\"invalid\"");
    List<String> notBatches = List.of(event("b-3"), "[]", batch("1", "2", "3", "4", "5", "6"));
    for (int i = 0; i < notBatches.size(); i++) {
      String other = "/api/v1/devices/batcher-" + i + "/events:batch";
      assertThat(problem(post(other, notBatches.get(i), bearer(EVERY_DEVICE))))
          .isEqualTo("invalid-batch");
    }
  }

  @Test
  @Order(4)
  void refusalsBeforeTheBody() throws Exception {
    String path = "/api/v1/devices/station-2/events";
    assertThat(problem(post(path, event("r-1")))).isEqualTo("unauthenticated");
    assertThat(problem(post(path, event("r-2"), "Bearer 0123456789abcdef.nope")))
        .isEqualTo("unauthenticated");
    assertThat(problem(post(path, event("r-3"), bearer(STATION_1)))).isEqualTo("forbidden");
    assertThat(
            problem(
                send(
                    request(path, bearer(EVERY_DEVICE))
                        .header("Content-Type", "text/plain")
                        .POST(BodyPublishers.ofString(event("r-4"))))))
        .isEqualTo("unsupported-media-type");
    String tooLarge =
        event("r-5").replace("}", ",\"attributes\":{\"x\":\"" + "x".repeat(5000) + "\"}}");
    assertThat(problem(post(path, tooLarge, bearer(EVERY_DEVICE)))).isEqualTo("body-too-large");
    String flood = "/api/v1/devices/flood/events";
    List<String> answers = new ArrayList<>();
    for (int i = 0; i < BURST + 3; i++) {
      answers.add(problemOrStatus(post(flood, event("f-" + i), bearer(EVERY_DEVICE))));
    }
    assertThat(answers).contains("rate-limited");
  }

  @Test
  @Order(5)
  void refusalsOfTheBody() throws Exception {
    // One device per request: the rate limit (a burst of 3) is not what these are about.
    assertThat(problem(post(events("json"), "{\"eventId\":", bearer(EVERY_DEVICE))))
        .isEqualTo("malformed-json");
    assertThat(problem(post("/api/v1/devices/bad*id/events", event("r-6"), bearer(EVERY_DEVICE))))
        .isEqualTo("invalid-device-id");
    assertThat(problem(post(events("schema"), "{\"eventId\":\"r-7\"}", bearer(EVERY_DEVICE))))
        .isEqualTo("invalid-event");
    String deep = "{\"a\":".repeat(80) + "1" + "}".repeat(80);
    String tooDeep = event("r-8").replace("}", ",\"attributes\":" + deep + "}");
    assertThat(problem(post(events("deep"), tooDeep, bearer(EVERY_DEVICE))))
        .isEqualTo("json-limit-exceeded");
  }

  @Test
  @Order(6)
  void answersGivenBeforeAnyRoute() throws Exception {
    assertThat(problem(send(request("/nowhere").GET()))).isEqualTo("not-found");
    assertThat(problem(send(request("/openapi/nope.v1.schema.json").GET()))).isEqualTo("not-found");
    HttpResponse<byte[]> wrongMethod = send(request("/api/v1/devices/station-1/events").GET());
    assertThat(problem(wrongMethod)).isEqualTo("method-not-allowed");
    assertThat(wrongMethod.headers().firstValue("Allow")).hasValue("POST");
    assertThat(problem(send(request("/metrics").DELETE()))).isEqualTo("method-not-allowed");
    String longPath = "/api/v1/devices/" + "d".repeat(5000) + "/events";
    assertThat(problem(post(longPath, event("r-9"), bearer(EVERY_DEVICE))))
        .isEqualTo("uri-too-long");
    assertThat(
            problem(
                send(
                    request(events("header"), bearer(EVERY_DEVICE))
                        .header("X-Padding", "p".repeat(9000))
                        .header("Content-Type", "application/json")
                        .POST(BodyPublishers.ofString(event("r-10"))))))
        .isEqualTo("header-fields-too-large");
    String framing =
        "POST /api/v1/devices/framing/events HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            + "Authorization: "
            + bearer(EVERY_DEVICE)
            + "\r\nContent-Type: application/json\r\nTransfer-Encoding: gzip\r\n\r\n";
    assertThat(raw("POST", events("framing"), framing)).isEqualTo("malformed-request");
    String halfBody =
        "POST /api/v1/devices/half/events HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            + "Authorization: "
            + bearer(EVERY_DEVICE)
            + "\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"eventId\"";
    assertThat(raw("POST", events("half"), halfBody)).isEqualTo("request-timeout");
  }

  @Test
  @Order(7)
  void probesMetricsAndDocuments() throws Exception {
    assertThat(send(request("/health/live").GET()).statusCode()).isEqualTo(200);
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> send(request("/health/ready").GET()).statusCode() == 200);
    assertThat(send(request("/metrics").GET()).statusCode()).isEqualTo(200);
    HttpResponse<byte[]> document = send(request(ApiDocument.BRIDGE.path()).GET());
    assertThat(document.statusCode()).isEqualTo(200);
    assertThat(new String(document.body(), StandardCharsets.UTF_8))
        .isEqualTo(ApiDocument.BRIDGE.text());
    assertThat(send(request("/openapi/problem.v1.schema.json").GET()).statusCode()).isEqualTo(200);
    assertThat(send(request("/openapi/" + ApiDocument.TOPOLOGY.fileName()).GET()).statusCode())
        .isEqualTo(404);
  }

  @Test
  @Order(8)
  void withoutKafkaNotReadyAndNotWritten() throws Exception {
    kafka.stopBroker();
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> send(request("/health/ready").GET()).statusCode() == 503);
    HttpResponse<byte[]> unavailable =
        post("/api/v1/devices/station-4/events", event("k-1"), bearer(EVERY_DEVICE));
    assertThat(problem(unavailable)).isIn("kafka-unavailable", "saturated");
    assertThat(unavailable.headers().firstValue("Retry-After")).isPresent();
  }

  private static String events(String deviceId) {
    return "/api/v1/devices/" + deviceId + "/events";
  }

  private static String bearer(Issued issued) {
    return "Bearer " + issued.token();
  }

  private static HttpRequest.Builder request(String path, String... authorization) {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + bridge.httpPort() + path))
            .timeout(Duration.ofSeconds(20));
    for (String value : authorization) {
      request.header("Authorization", value);
    }
    return request;
  }

  private static HttpResponse<byte[]> post(String path, String body, String... authorization)
      throws Exception {
    return send(
        request(path, authorization)
            .header("Content-Type", "application/json")
            .POST(BodyPublishers.ofString(body)));
  }

  /** Sends the request and checks the answer against the document, whatever its status. */
  private static HttpResponse<byte[]> send(HttpRequest.Builder request) throws Exception {
    HttpResponse<byte[]> response =
        DeviceTraffic.HTTP.send(request.build(), BodyHandlers.ofByteArray());
    contract.check(response);
    return response;
  }

  /** The slug of a problem answer. */
  private static String problem(HttpResponse<byte[]> response) {
    String body = new String(response.body(), StandardCharsets.UTF_8);
    assertThat(response.headers().firstValue("Content-Type"))
        .as(body)
        .hasValue("application/problem+json");
    return slug(body);
  }

  private static String problemOrStatus(HttpResponse<byte[]> response) {
    return response.statusCode() < 400
        ? Integer.toString(response.statusCode())
        : problem(response);
  }

  private static String slug(String problem) {
    int start = problem.indexOf("/problems/") + "/problems/".length();
    return problem.substring(start, problem.indexOf('"', start));
  }

  /**
   * Writes bytes no {@link java.net.http.HttpClient} sends (a framing it refuses, a body cut
   * short), checks the answer to the closed connection against the document and returns its problem
   * slug.
   */
  private static String raw(String method, String path, String request) throws Exception {
    RawExchange answer = RawExchange.send(bridge.httpPort(), request);
    contract.check(method, path, answer.status(), answer.headers(), answer.body());
    return slug(new String(answer.body(), StandardCharsets.UTF_8));
  }
}
