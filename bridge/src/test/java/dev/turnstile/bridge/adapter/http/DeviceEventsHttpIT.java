package dev.turnstile.bridge.adapter.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.turnstile.bridge.BridgeApplication;
import dev.turnstile.bridge.config.BridgeConfigLoader;
import dev.turnstile.contracttest.SchemaValidator;
import dev.turnstile.runtime.topics.TopicSpec;
import dev.turnstile.schemas.Json;
import dev.turnstile.schemas.StrictJson;
import dev.turnstile.schemas.TopicCatalogue;
import dev.turnstile.testkit.EmbeddedKafka;
import io.cloudevents.CloudEvent;
import io.cloudevents.kafka.CloudEventDeserializer;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The bridge over real HTTP on loopback against a real in-process Kafka. */
class DeviceEventsHttpIT {

  private static final String TOPIC = "it." + TopicCatalogue.DEVICE_EVENTS_RAW.baseName();
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  private static EmbeddedKafka kafka;
  private static BridgeApplication bridge;
  private static KafkaConsumer<String, CloudEvent> consumer;
  private static final List<ConsumerRecord<String, CloudEvent>> records = new ArrayList<>();

  @BeforeAll
  static void start() {
    kafka = EmbeddedKafka.start(null);
    kafka.createTopics(
        List.of(TopicSpec.of(TopicCatalogue.DEVICE_EVENTS_RAW, "it.", (short) 1).toNewTopic()));
    bridge =
        BridgeApplication.start(
            BridgeConfigLoader.fromMap(
                Map.of(
                    "kafka.bootstrap.servers", kafka.bootstrapServers(),
                    "bridge.auth.enabled", "false", // not about authentication
                    "topic.prefix", "it.",
                    "bridge.http.host", "127.0.0.1",
                    "bridge.http.port", "0",
                    "bridge.http.body-limit-bytes", "4096",
                    "bridge.kafka.readiness-interval-ms", "200")));
    // The bridge answers 503 until it has seen its topic as declared; every test here expects the
    // ready bridge.
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                send(bridge, HttpRequest.newBuilder(uri(bridge, "/health/ready")).GET())
                        .statusCode()
                    == 200);
    consumer =
        new KafkaConsumer<>(
            Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()),
            new StringDeserializer(),
            new CloudEventDeserializer());
    List<TopicPartition> partitions =
        IntStream.range(0, TopicCatalogue.DEVICE_EVENTS_RAW.partitions())
            .mapToObj(p -> new TopicPartition(TOPIC, p))
            .toList();
    consumer.assign(partitions);
    consumer.seekToBeginning(partitions);
  }

  @AfterAll
  static void stop() {
    if (consumer != null) {
      consumer.close();
    }
    if (bridge != null) {
      bridge.close();
    }
    if (kafka != null) {
      kafka.close();
    }
  }

  @Test
  void anAcceptedEventIsInKafkaWithItsCloudEventHeaders() throws Exception {
    HttpResponse<String> response =
        post(bridge, "/api/v1/devices/station-1/events", event("e-1", "2014-11-18T15:40:26+01:00"));

    assertThat(response.statusCode()).isEqualTo(202);
    var body = Json.mapper().readTree(response.body());
    assertThat(body.path("status").asText()).isEqualTo("accepted");
    assertThat(body.path("eventId").asText()).isEqualTo("e-1");
    assertThat(body.has("partition") && body.has("offset")).isTrue();

    ConsumerRecord<String, CloudEvent> record = awaitRecord("station-1", "e-1");
    assertThat(record.key()).isEqualTo("station-1");
    assertThat(header(record, "ce_id")).isEqualTo("e-1");
    assertThat(header(record, "ce_source")).isEqualTo("/devices/station-1");
    assertThat(header(record, "ce_type")).isEqualTo("dev.turnstile.device.started.v1");
    assertThat(header(record, "ce_specversion")).isEqualTo("1.0");
    assertThat(header(record, "content-type")).isEqualTo("application/json");
    CloudEvent event = record.value();
    assertThat(event.getSubject()).isEqualTo("station-1");
    assertThat(event.getTime().toString()).isEqualTo("2014-11-18T15:40:26+01:00");
    assertThat(event.getDataSchema().toString())
        .isEqualTo("https://turnstile.dev/schemas/device-event.v1.schema.json");
    var value = Json.mapper().readTree(event.getData().toBytes());
    assertThat(value.path("deviceId").asText()).isEqualTo("station-1");
    assertThat(value.path("occurredAt").asText()).isEqualTo("2014-11-18T15:40:26+01:00");
    assertThat(value.has("receivedAt")).isTrue();
    assertThat(record.offset()).isEqualTo(body.path("offset").asLong());
    // Ingestion time, not the device's 2014 clock: dedup retention and reorder grace use it.
    assertThat(record.timestamp())
        .isBetween(System.currentTimeMillis() - 60_000, System.currentTimeMillis());
  }

  @Test
  void aRepeatAfterTheAckIsADuplicateAndWrittenOnce() throws Exception {
    String path = "/api/v1/devices/station-2/events";
    assertThat(post(bridge, path, event("e-2", "2014-11-18T15:40:26Z")).statusCode())
        .isEqualTo(202);

    HttpResponse<String> repeat = post(bridge, path, event("e-2", "2014-11-18T15:40:26Z"));

    assertThat(repeat.statusCode()).isEqualTo(200);
    assertThat(Json.mapper().readTree(repeat.body()).path("status").asText())
        .isEqualTo("duplicate");
    assertThat(eventIdsWrittenFor("station-2")).containsExactly("e-2", "sentinel");
  }

  @Test
  void aRepeatWithOtherContentIsADuplicateMarkedAsAConflict() throws Exception {
    String path = "/api/v1/devices/station-8/events";
    assertThat(post(bridge, path, event("e-8", "2014-11-18T15:40:26Z")).statusCode())
        .isEqualTo(202);

    HttpResponse<String> repeat = post(bridge, path, event("e-8", "2014-11-18T15:41:00Z"));

    assertThat(repeat.statusCode()).isEqualTo(200);
    var body = Json.mapper().readTree(repeat.body());
    assertThat(body.path("status").asText()).isEqualTo("duplicate");
    assertThat(body.path("conflict").asBoolean()).isTrue();
    assertThat(eventIdsWrittenFor("station-8")).containsExactly("e-8", "sentinel");
    assertThat(send(bridge, HttpRequest.newBuilder(uri(bridge, "/metrics"))).body())
        .contains("outcome=\"duplicate\",reason=\"conflicting-content\"");
  }

  @Test
  void duplicatedKeysAre400NamingTheKey() throws Exception {
    HttpResponse<String> response =
        post(
            bridge,
            "/api/v1/devices/dup-keys/events",
            "{\"eventId\":\"a2\",\"type\":\"Started\",\"type\":\"Finished\","
                + "\"occurredAt\":\"2014-11-18T15:40:26Z\"}");

    var problem = assertProblem(response, 400);
    assertThat(problem.path("detail").asText()).contains("duplicate key \"type\"", "line 1");
    assertThat(eventIdsWrittenFor("dup-keys")).containsExactly("sentinel");
  }

  @Test
  void attributeNumbersReachKafkaExactlyAsSent() throws Exception {
    String body =
        "{\"eventId\":\"e-9\",\"type\":\"Started\",\"occurredAt\":\"2014-11-18T15:40:26Z\","
            + "\"attributes\":{\"big\":1e400,\"price\":7.50}}";
    assertThat(post(bridge, "/api/v1/devices/numbers/events", body).statusCode()).isEqualTo(202);

    String data =
        new String(
            awaitRecord("numbers", "e-9").value().getData().toBytes(), StandardCharsets.UTF_8);

    // The raw text: a default reader would itself turn 1E+400 into a double again.
    assertThat(data).contains("\"attributes\":{\"big\":1E+400,\"price\":7.50}");
  }

  @Test
  void theMediaTypeIsCaseInsensitiveAndOnlyUtf8IsRead() throws Exception {
    String path = "/api/v1/devices/media-type/events";
    assertThat(postAs(path, "APPLICATION/JSON", event("e-10", "2014-11-18T15:40:26Z")).statusCode())
        .isEqualTo(202);
    assertThat(
            postAs(
                    path,
                    "Application/Json; Charset=\"UTF-8\"",
                    event("e-11", "2014-11-18T15:40:26Z"))
                .statusCode())
        .isEqualTo(202);

    var problem =
        assertProblem(
            postAs(
                path,
                "application/json; charset=ISO-8859-1",
                event("e-12", "2014-11-18T15:40:26Z")),
            415);

    assertThat(problem.path("detail").asText()).contains("ISO-8859-1", "UTF-8");
    assertThat(eventIdsWrittenFor("media-type")).containsExactly("e-10", "e-11", "sentinel");
  }

  @Test
  void implausibleDeviceTimestampsAre422OutOfRange() throws Exception {
    for (String occurredAt : List.of("0000-01-01T00:00:00Z", "9999-12-31T23:59:59Z")) {
      var problem =
          assertProblem(
              post(bridge, "/api/v1/devices/clock/events", event("e-13", occurredAt)), 422);
      var error = problem.path("errors").get(0);
      assertThat(error.path("pointer").asText()).isEqualTo("/occurredAt");
      assertThat(error.path("keyword").asText()).isEqualTo("range");
      assertThat(error.path("message").asText()).contains("2000-01-01T00:00:00Z");
    }
    assertThat(eventIdsWrittenFor("clock")).containsExactly("sentinel");
  }

  /**
   * The request schema's {@code date-time} takes a leap second (RFC 3339 allows one); java.time
   * cannot hold it. The typed command is the only check after the schema, so this is the request
   * that would be written, or fail with a 500, were that check skipped.
   */
  @Test
  void aLeapSecondPassesTheSchemaButIs422SayingWhy() throws Exception {
    var problem =
        assertProblem(
            post(bridge, "/api/v1/devices/leap/events", event("e-60", "2016-12-31T23:59:60Z")),
            422);

    assertThat(problem.path("detail").asText()).isEqualTo("the event breaks a rule");
    var error = problem.path("errors").get(0);
    assertThat(error.path("pointer").asText()).isEqualTo("/occurredAt");
    assertThat(error.path("keyword").asText()).isEqualTo("format");
    assertThat(error.path("message").asText()).contains("leap second");
    assertThat(eventIdsWrittenFor("leap")).containsExactly("sentinel");
  }

  @Test
  void malformedJsonIs400() throws Exception {
    var problem =
        assertProblem(post(bridge, "/api/v1/devices/bad-json/events", "{\"eventId\": "), 400);
    assertThat(problem.path("detail").asText())
        .isEqualTo("the body is not JSON: unexpected end of input at line 1, column 13");
    assertThat(eventIdsWrittenFor("bad-json")).containsExactly("sentinel");
  }

  /** Issue 8, case 1: a body nested 1000 deep once stopped the topology. */
  @Test
  void wellFormedJsonPastALimitIs422NamingTheLimitAndWhere() throws Exception {
    String deep = "{\"a\":".repeat(300) + "1" + "}".repeat(300);
    String body =
        "{\"eventId\":\"deep-1\",\"type\":\"Started\",\"occurredAt\":\"2014-11-18T15:40:26Z\","
            + "\"attributes\":"
            + deep
            + "}";
    var depth = assertProblem(post(bridge, "/api/v1/devices/limits/events", body), 422);
    assertThat(depth.path("type").asText()).endsWith("/json-limit-exceeded");
    assertThat(depth.path("errors").get(0).path("keyword").asText()).isEqualTo("maxDepth");
    assertThat(depth.path("errors").get(0).path("pointer").asText())
        .startsWith("/attributes/a/a/")
        .hasSize("/attributes".length() + "/a".repeat(StrictJson.MAX_DEPTH - 1).length());
    assertThat(depth.path("detail").asText()).contains("deeper than " + StrictJson.MAX_DEPTH);

    String longNumber = "1" + "0".repeat(StrictJson.MAX_NUMBER_LENGTH);
    var number =
        assertProblem(
            post(
                bridge,
                "/api/v1/devices/limits/events",
                "{\"eventId\":\"n-1\",\"type\":\"Started\",\"occurredAt\":\"2014-11-18T15:40:26Z\","
                    + "\"attributes\":{\"kwh\":"
                    + longNumber
                    + "}}"),
            422);
    assertThat(number.path("errors").get(0).path("keyword").asText()).isEqualTo("maxNumberLength");
    assertThat(number.path("errors").get(0).path("pointer").asText()).isEqualTo("/attributes/kwh");
    assertThat(eventIdsWrittenFor("limits")).containsExactly("sentinel");
  }

  @Test
  void aBadDeviceIdIs400() throws Exception {
    String tooLong = "d".repeat(129);
    assertProblem(
        post(
            bridge, "/api/v1/devices/" + tooLong + "/events", event("e-3", "2014-11-18T15:40:26Z")),
        400);
    assertProblem(
        post(bridge, "/api/v1/devices/bad%20id/events", event("e-3", "2014-11-18T15:40:26Z")), 400);
  }

  @Test
  void aBodyOverTheLimitIs413() throws Exception {
    String huge =
        "{\"eventId\":\"e-4\",\"type\":\"Started\",\"occurredAt\":\"2014-11-18T15:40:26Z\","
            + "\"attributes\":{\"pad\":\""
            + "x".repeat(8_000)
            + "\"}}";
    var problem = assertProblem(post(bridge, "/api/v1/devices/too-large/events", huge), 413);
    assertThat(problem.path("detail").asText()).contains("4096 bytes");
    assertThat(eventIdsWrittenFor("too-large")).containsExactly("sentinel");
  }

  @Test
  void aNonJsonContentTypeIs415() throws Exception {
    HttpResponse<String> response =
        send(
            bridge,
            HttpRequest.newBuilder(uri(bridge, "/api/v1/devices/text-body/events"))
                .header("Content-Type", "text/plain")
                .POST(BodyPublishers.ofString(event("e-5", "2014-11-18T15:40:26Z"))));
    assertProblem(response, 415);
    assertThat(eventIdsWrittenFor("text-body")).containsExactly("sentinel");
  }

  @Test
  void schemaAndTimestampViolationsAre422WithPointers() throws Exception {
    HttpResponse<String> missing =
        post(bridge, "/api/v1/devices/invalid/events", "{\"type\":\"Paused\",\"extra\":1}");
    var problem = assertProblem(missing, 422);
    List<String> errors = new ArrayList<>();
    problem
        .path("errors")
        .forEach(e -> errors.add(e.path("pointer").asText() + " " + e.path("keyword").asText()));
    assertThat(errors)
        .containsExactlyInAnyOrder(
            "/eventId required",
            "/occurredAt required",
            "/type enum",
            "/extra additionalProperties");
    problem.path("errors").forEach(e -> assertThat(e.path("message").asText()).isNotBlank());

    HttpResponse<String> noOffset =
        post(bridge, "/api/v1/devices/invalid/events", event("e-6", "2014-11-18T15:40:26"));
    var noOffsetProblem = assertProblem(noOffset, 422);
    assertThat(noOffsetProblem.path("errors").get(0).path("pointer").asText())
        .isEqualTo("/occurredAt");

    assertThat(eventIdsWrittenFor("invalid")).containsExactly("sentinel");
  }

  @Test
  void unknownRoutesAndMethodsAreProblems() throws Exception {
    assertProblem(send(bridge, HttpRequest.newBuilder(uri(bridge, "/nope")).GET()), 404);
    HttpResponse<String> notAllowed =
        send(bridge, HttpRequest.newBuilder(uri(bridge, "/api/v1/devices/d/events")).GET());
    assertProblem(notAllowed, 405);
    assertThat(notAllowed.headers().firstValue("Allow")).hasValue("POST");
    HttpResponse<String> postToMetrics =
        send(bridge, HttpRequest.newBuilder(uri(bridge, "/metrics")).POST(BodyPublishers.noBody()));
    assertProblem(postToMetrics, 405);
    assertThat(postToMetrics.headers().firstValue("Allow")).hasValue("GET");
  }

  @Test
  void healthAndMetricsAnswer() throws Exception {
    assertThat(send(bridge, HttpRequest.newBuilder(uri(bridge, "/health/live"))).statusCode())
        .isEqualTo(200);
    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () ->
                assertThat(
                        send(bridge, HttpRequest.newBuilder(uri(bridge, "/health/ready")))
                            .statusCode())
                    .isEqualTo(200));
    post(bridge, "/api/v1/devices/metrics/events", "not json");
    HttpResponse<String> metrics = send(bridge, HttpRequest.newBuilder(uri(bridge, "/metrics")));
    assertThat(metrics.statusCode()).isEqualTo(200);
    assertThat(metrics.body()).contains("turnstile_bridge_device_events_total");
    assertThat(
            post(bridge, "/api/v1/devices/metrics/events", event("e-14", "2014-11-18T15:40:26Z"))
                .statusCode())
        .isEqualTo(202);
    String after = send(bridge, HttpRequest.newBuilder(uri(bridge, "/metrics"))).body();
    assertThat(after)
        .contains("kafka_producer_", "turnstile_bridge_device_kafka_ack_seconds_count");
  }

  @Test
  void kafkaUnreachableIs503WithRetryAfterAndNotReady() throws Exception {
    int closedPort;
    try (ServerSocket socket = new ServerSocket(0)) {
      closedPort = socket.getLocalPort();
    }
    try (BridgeApplication cut =
        BridgeApplication.start(
            BridgeConfigLoader.fromMap(
                Map.of(
                    "kafka.bootstrap.servers", "127.0.0.1:" + closedPort,
                    "bridge.auth.enabled", "false", // not about authentication
                    "bridge.http.host", "127.0.0.1",
                    "bridge.http.port", "0",
                    "bridge.kafka.ack-timeout-ms", "1000",
                    "bridge.http.retry-after-seconds", "7",
                    "bridge.kafka.readiness-interval-ms", "200",
                    "bridge.shutdown-timeout-ms", "1000")))) {
      HttpResponse<String> response =
          post(cut, "/api/v1/devices/cut-off/events", event("e-7", "2014-11-18T15:40:26Z"));

      assertProblem(response, 503);
      assertThat(response.headers().firstValue("Retry-After")).hasValue("7");
      HttpResponse<String> ready = send(cut, HttpRequest.newBuilder(uri(cut, "/health/ready")));
      assertThat(ready.statusCode()).isEqualTo(503);
      assertThat(send(cut, HttpRequest.newBuilder(uri(cut, "/health/live"))).statusCode())
          .isEqualTo(200);
    }
  }

  private static com.fasterxml.jackson.databind.JsonNode assertProblem(
      HttpResponse<String> response, int status) throws IOException {
    assertThat(response.statusCode()).as(response.body()).isEqualTo(status);
    assertThat(response.headers().firstValue("Content-Type")).hasValue("application/problem+json");
    var problem = Json.mapper().readTree(response.body());
    assertThat(problem.path("type").asText()).startsWith("https://turnstile.dev/problems/");
    assertThat(problem.path("title").asText()).isNotBlank();
    assertThat(problem.path("status").asInt()).isEqualTo(status);
    assertThat(problem.has("detail")).isTrue();
    return problem;
  }

  /**
   * The event IDs written for a device, up to a sentinel posted now: a device's records share one
   * partition (keyed by deviceId), so anything the earlier requests wrote precedes the sentinel.
   */
  private static List<String> eventIdsWrittenFor(String deviceId) throws Exception {
    assertThat(
            post(
                    bridge,
                    "/api/v1/devices/" + deviceId + "/events",
                    event("sentinel", "2014-11-18T15:40:26Z"))
                .statusCode())
        .isEqualTo(202);
    awaitRecord(deviceId, "sentinel");
    synchronized (records) {
      return records.stream()
          .filter(r -> deviceId.equals(r.key()))
          .map(r -> r.value().getId())
          .collect(Collectors.toList());
    }
  }

  private static ConsumerRecord<String, CloudEvent> awaitRecord(String deviceId, String eventId) {
    return await()
        .atMost(Duration.ofSeconds(20))
        .pollInSameThread()
        .until(
            () -> {
              synchronized (records) {
                consumer.poll(Duration.ofMillis(100)).forEach(DeviceEventsHttpIT::addChecked);
                return records.stream()
                    .filter(r -> deviceId.equals(r.key()) && eventId.equals(r.value().getId()))
                    .findFirst()
                    .orElse(null);
              }
            },
            r -> r != null);
  }

  /**
   * Every raw record the bridge wrote and this test reads is a CloudEvent (the consumer's value
   * deserializer is the standard CloudEventDeserializer) whose data validates against the schema
   * the catalogue names for the topic.
   */
  private static void addChecked(ConsumerRecord<String, CloudEvent> record) {
    SchemaValidator.assertValid(
        TopicCatalogue.DEVICE_EVENTS_RAW.valueSchema(), record.value().getData().toBytes());
    records.add(record);
  }

  private static String header(ConsumerRecord<?, ?> record, String name) {
    Header header = record.headers().lastHeader(name);
    return header == null ? null : new String(header.value(), StandardCharsets.UTF_8);
  }

  private static String event(String eventId, String occurredAt) {
    return "{\"eventId\":\""
        + eventId
        + "\",\"type\":\"Started\",\"occurredAt\":\""
        + occurredAt
        + "\",\"attributes\":{\"connector\":2}}";
  }

  private static URI uri(BridgeApplication app, String path) {
    return URI.create("http://127.0.0.1:" + app.httpPort() + path);
  }

  private static HttpResponse<String> post(BridgeApplication app, String path, String body)
      throws Exception {
    return send(
        app,
        HttpRequest.newBuilder(uri(app, path))
            .header("Content-Type", "application/json; charset=utf-8")
            .POST(BodyPublishers.ofString(body)));
  }

  private static HttpResponse<String> postAs(String path, String contentType, String body)
      throws Exception {
    return send(
        bridge,
        HttpRequest.newBuilder(uri(bridge, path))
            .header("Content-Type", contentType)
            .POST(BodyPublishers.ofString(body)));
  }

  private static HttpResponse<String> send(BridgeApplication app, HttpRequest.Builder request)
      throws Exception {
    return HTTP.send(request.timeout(Duration.ofSeconds(20)).build(), BodyHandlers.ofString());
  }
}
