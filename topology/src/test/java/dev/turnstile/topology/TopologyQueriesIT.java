package dev.turnstile.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.turnstile.contracttest.GoldenSamples;
import dev.turnstile.contracttest.SchemaValidator;
import dev.turnstile.runtime.topics.TopicSpec;
import dev.turnstile.schemas.ApiDocument;
import dev.turnstile.schemas.CloudEventHeaders;
import dev.turnstile.schemas.DeviceEvent;
import dev.turnstile.schemas.DeviceEventType;
import dev.turnstile.schemas.DeviceSessionEvent;
import dev.turnstile.schemas.DeviceSessionEventType;
import dev.turnstile.schemas.Json;
import dev.turnstile.schemas.Topic;
import dev.turnstile.schemas.TopicCatalogue;
import dev.turnstile.testkit.EmbeddedKafka;
import dev.turnstile.testkit.openapi.OpenApiCheck;
import dev.turnstile.topology.adapter.http.QueryRoutes;
import dev.turnstile.topology.config.TopologyConfig;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two topology processes (the production wiring, {@link TopologyProcess}) in one group on one real
 * broker, the catalogue's topics with their partitions, one standby replica of every task: every
 * key is answered from either instance exactly as the output topics tell it; the first instance
 * routes what it does not own to the owner, the second (standby reads allowed, lag bound 0) answers
 * from its standbys instead; and while one instance leaves (its tasks move and restore) the other
 * answers correctly or 503, never wrongly. Every answer, 503s included, is checked against {@code
 * topology.v1.openapi.yaml} by vertx-openapi's validator ({@link OpenApiCheck}), and the document
 * lists exactly the routes of the server.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class TopologyQueriesIT {

  static final int DEVICES = 12;
  static final OffsetDateTime T0 = OffsetDateTime.parse("2014-11-18T15:40:26-08:00");

  @TempDir static Path home;
  static EmbeddedKafka kafka;
  static TopologyProcess first;
  static TopologyProcess second;
  static final HttpClient HTTP = HttpClient.newHttpClient();
  static OpenApiCheck contract;

  /** What device-sessions.v1 says: device to its open sessionRef's sessionId, and ended refs. */
  static final Map<String, String> openSessionIds = new HashMap<>();

  /** What merge-results.v1 says last for each merge key. */
  static final Map<String, JsonNode> lastMergeResults = new HashMap<>();

  @BeforeAll
  static void start() throws Exception {
    contract =
        OpenApiCheck.load(
            "dev/turnstile/schemas/",
            "https://turnstile.dev/schemas/",
            ApiDocument.TOPOLOGY.fileName());
    kafka = EmbeddedKafka.start(home.resolve("kafka"));
    kafka.createTopics(
        TopicSpec.catalogue("", (short) 1).stream().map(TopicSpec::toNewTopic).toList());
    first = TopologyProcess.start(config("a", -1));
    second = TopologyProcess.start(config("b", 0));
    await().atMost(Duration.ofSeconds(120)).until(() -> first.isReady() && second.isReady());
    sendEvents();
    List<ConsumerRecord<String, byte[]>> sessions =
        read(TopicCatalogue.DEVICE_SESSIONS, 3 * DEVICES);
    for (ConsumerRecord<String, byte[]> record : sessions) {
      DeviceSessionEvent event = Json.mapper().readValue(record.value(), DeviceSessionEvent.class);
      if (event.type() == DeviceSessionEventType.Opened && event.sessionRef().endsWith("-b")) {
        openSessionIds.put(event.deviceId(), event.sessionId());
      }
    }
    for (ConsumerRecord<String, byte[]> record : read(TopicCatalogue.MERGE_RESULTS, DEVICES)) {
      lastMergeResults.put(record.key(), Json.mapper().readTree(record.value()));
    }
    assertThat(openSessionIds).hasSize(DEVICES);
    assertThat(lastMergeResults).hasSize(DEVICES);
  }

  @AfterAll
  static void stop() {
    for (TopologyProcess process : new TopologyProcess[] {first, second}) {
      if (process != null) {
        process.close();
      }
    }
    kafka.close();
    contract.close();
  }

  /**
   * @param standbyMaxLag {@code topology.query.standby-max-lag-records}: -1 never reads a standby
   */
  static TopologyConfig config(String pod, long standbyMaxLag) {
    return TopologyConfig.of(
        Map.of(
            "kafka.bootstrap.servers", kafka.bootstrapServers(),
            "topology.state-dir", home.resolve("streams-" + pod).toString(),
            "topology.num-standby-replicas", "1",
            "topology.query.standby-max-lag-records", Long.toString(standbyMaxLag),
            "topology.http.host", "127.0.0.1",
            "topology.http.port", "0",
            "topology.topics.check-interval-ms", "1000"));
  }

  @Test
  @Order(1)
  void everyKeyIsAnsweredFromEitherInstanceAsTheOutputTopicsSay() throws Exception {
    // Routed from the first instance to the owner; the second reads its standbys, once they
    // caught up (lag 0), so none of its answers is routed.
    Map<String, AtomicInteger> routed = new ConcurrentHashMap<>();
    for (int i = 0; i < DEVICES; i++) {
      HttpResponse<String> sessions = get(first, "/api/v1/devices/dev-" + i + "/sessions");
      assertThat(wrongSessions("dev-" + i, sessions)).as("dev-%d", i).isNull();
      countRouted(first, sessions, routed);
      HttpResponse<String> merged = get(first, "/api/v1/merge/ref-" + i + "-a");
      assertThat(wrongMerge("ref-" + i + "-a", merged)).as("ref-%d-a", i).isNull();
      countRouted(first, merged, routed);
      assertThat(replica(sessions)).isEqualTo("active");
      assertThat(replica(merged)).isEqualTo("active");
    }
    assertThat(routed.keySet())
        .as("the first instance had answers routed to the second")
        .containsExactly(first.advertisedServer());
    Map<String, Integer> replicas = new ConcurrentHashMap<>();
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () -> {
              replicas.clear();
              for (int i = 0; i < DEVICES; i++) {
                HttpResponse<String> sessions =
                    get(second, "/api/v1/devices/dev-" + i + "/sessions");
                HttpResponse<String> merged = get(second, "/api/v1/merge/ref-" + i + "-a");
                assertThat(wrongSessions("dev-" + i, sessions)).as("dev-%d", i).isNull();
                assertThat(wrongMerge("ref-" + i + "-a", merged)).as("ref-%d-a", i).isNull();
                for (HttpResponse<String> answer : List.of(sessions, merged)) {
                  String servedBy = answer.headers().firstValue(QueryRoutes.SERVED_BY).orElse("");
                  if (!servedBy.equals(second.advertisedServer())) {
                    // Only then ask again, for the reason the standby did not answer.
                    throw new AssertionError(
                        answer.uri()
                            + " served by "
                            + servedBy
                            + "; asked for its local state only: "
                            + localOnly(answer));
                  }
                  replicas.merge(replica(answer), 1, Integer::sum);
                }
              }
            });
    assertThat(replicas)
        .as("the second instance answered from active tasks and from standbys")
        .containsOnlyKeys("active", "standby");
  }

  @Test
  @Order(2)
  void theDocumentDescribesEveryRouteAndTheServerKeepsToIt() throws Exception {
    assertThat(contract.operations()).containsExactlyElementsOf(first.httpRoutes());
    assertThat(get(first, "/health/live").statusCode()).isEqualTo(200);
    assertThat(get(first, "/health/ready").statusCode()).isEqualTo(200);
    assertThat(get(first, "/metrics").body()).contains("kafka_stream");
    HttpResponse<String> document = get(first, ApiDocument.TOPOLOGY.path());
    assertThat(document.body()).isEqualTo(ApiDocument.TOPOLOGY.text());
    assertThat(get(first, "/openapi/device-sessions-view.v1.schema.json").statusCode())
        .isEqualTo(200);
    for (String notServed :
        List.of(
            "/openapi/" + ApiDocument.BRIDGE.fileName(),
            "/openapi/nope.v1.schema.json",
            "/api/v1/devices/dev-1",
            "/nowhere")) {
      assertThat(problem(get(first, notServed))).as(notServed).isEqualTo("not-found");
    }
    HttpResponse<String> posted =
        send(
            request(first, "/api/v1/merge/ref-1-a")
                .POST(HttpRequest.BodyPublishers.ofString("{}")));
    assertThat(problem(posted)).isEqualTo("method-not-allowed");
    assertThat(problem(get(first, "/api/v1/devices/no%20spaces/sessions")))
        .isEqualTo("invalid-device-id");
    assertThat(problem(get(first, "/api/v1/merge/" + "k".repeat(1025))))
        .isEqualTo("invalid-merge-key");
  }

  @Test
  @Order(3)
  void nothingHeldIsEmptyForADeviceAndNotFoundForAMergeKey() throws Exception {
    for (TopologyProcess asked : List.of(first, second)) {
      HttpResponse<String> device = get(asked, "/api/v1/devices/never-seen/sessions");
      assertThat(device.statusCode()).isEqualTo(200);
      JsonNode body = Json.mapper().readTree(device.body());
      assertThat(body.get("open")).isEmpty();
      assertThat(body.get("recentlyEnded")).isEmpty();
      valid("device-sessions-view.v1", device);
      HttpResponse<String> merge = get(asked, "/api/v1/merge/never-merged");
      assertThat(merge.statusCode()).isEqualTo(404);
      assertThat(merge.headers().firstValue("Content-Type")).hasValue("application/problem+json");
      assertThat(get(asked, "/api/v1/devices/no%20spaces/sessions").statusCode()).isEqualTo(400);
    }
  }

  @Test
  @Order(4)
  void whileAnInstanceLeavesTheOtherAnswersCorrectlyOr503() throws Exception {
    List<String> wrong = new CopyOnWriteArrayList<>();
    AtomicInteger unavailable = new AtomicInteger();
    AtomicInteger correct = new AtomicInteger();
    AtomicBoolean polling = new AtomicBoolean(true);
    Thread poller =
        new Thread(
            () -> {
              int i = 0;
              while (polling.get()) {
                int device = i++ % DEVICES;
                try {
                  HttpResponse<String> answer =
                      device % 2 == 0
                          ? get(first, "/api/v1/devices/dev-" + device + "/sessions")
                          : get(first, "/api/v1/merge/ref-" + device + "-a");
                  if (answer.statusCode() == 503) {
                    unavailable.incrementAndGet();
                    continue;
                  }
                  String problem =
                      device % 2 == 0
                          ? wrongSessions("dev-" + device, answer)
                          : wrongMerge("ref-" + device + "-a", answer);
                  if (problem == null) {
                    correct.incrementAndGet();
                  } else {
                    wrong.add(problem);
                  }
                } catch (Exception | AssertionError e) {
                  // AssertionError: an answer the document does not describe.
                  wrong.add(e.toString());
                }
              }
            },
            "query-poller");
    poller.start();
    second.close();
    await().atMost(Duration.ofSeconds(120)).until(() -> first.isReady() && everyKeyServedBy(first));
    polling.set(false);
    poller.join();

    assertThat(wrong).as("wrong answers during the rebalance").isEmpty();
    assertThat(correct.get()).isPositive();
    System.out.printf(
        "during the rebalance: %d correct answers, %d answered 503%n",
        correct.get(), unavailable.get());
  }

  private static boolean everyKeyServedBy(TopologyProcess only) throws Exception {
    for (int i = 0; i < DEVICES; i++) {
      HttpResponse<String> sessions = get(only, "/api/v1/devices/dev-" + i + "/sessions");
      HttpResponse<String> merged = get(only, "/api/v1/merge/ref-" + i + "-a");
      for (HttpResponse<String> answer : List.of(sessions, merged)) {
        if (answer.statusCode() != 200
            || !answer
                .headers()
                .firstValue(QueryRoutes.SERVED_BY)
                .orElse("")
                .equals(only.advertisedServer())) {
          return false;
        }
      }
      assertThat(wrongSessions("dev-" + i, sessions)).isNull();
      assertThat(wrongMerge("ref-" + i + "-a", merged)).isNull();
    }
    return true;
  }

  /** Null when the answer is what device-sessions.v1 says, else what differs. */
  private static String wrongSessions(String device, HttpResponse<String> answer) throws Exception {
    if (answer.statusCode() != 200) {
      return device + ": status " + answer.statusCode() + " " + answer.body();
    }
    valid("device-sessions-view.v1", answer);
    JsonNode body = Json.mapper().readTree(answer.body());
    int index = Integer.parseInt(device.substring("dev-".length()));
    JsonNode open = body.get("open");
    JsonNode ended = body.get("recentlyEnded");
    boolean right =
        body.get("deviceId").asText().equals(device)
            && open.size() == 1
            && open.get(0).get("sessionId").asText().equals(openSessionIds.get(device))
            && open.get(0).get("sessionRef").asText().equals("ref-" + index + "-b")
            && ended.size() == 1
            && ended.get(0).get("sessionRef").asText().equals("ref-" + index + "-a")
            && ended.get(0).get("outcome").asText().equals("Closed");
    return right ? null : device + ": " + answer.body();
  }

  /** Null when the answer is what the key's last merge-results.v1 record says. */
  private static String wrongMerge(String mergeKey, HttpResponse<String> answer) throws Exception {
    if (answer.statusCode() != 200) {
      return mergeKey + ": status " + answer.statusCode() + " " + answer.body();
    }
    valid("merged-document-view.v1", answer);
    JsonNode body = Json.mapper().readTree(answer.body());
    JsonNode last = lastMergeResults.get(mergeKey);
    for (String field :
        List.of("mergeKey", "mergeResultId", "version", "document", "contributionCount")) {
      if (!body.get(field).equals(last.get(field))) {
        return mergeKey + ": " + field + " " + body.get(field) + " but the topic says " + last;
      }
    }
    return null;
  }

  private static void countRouted(
      TopologyProcess asked, HttpResponse<String> answer, Map<String, AtomicInteger> routed) {
    String servedBy = answer.headers().firstValue(QueryRoutes.SERVED_BY).orElseThrow();
    assertThat(servedBy).isIn(first.advertisedServer(), second.advertisedServer());
    if (!servedBy.equals(asked.advertisedServer())) {
      routed.computeIfAbsent(asked.advertisedServer(), k -> new AtomicInteger()).incrementAndGet();
    }
  }

  /** The second instance's answer from its own state alone, as a forwarded request gets it. */
  private static String localOnly(HttpResponse<String> answer) throws Exception {
    return send(request(second, answer.uri().getRawPath())
            .header(QueryRoutes.FORWARDED_BY, "test")
            .GET())
        .body();
  }

  private static String replica(HttpResponse<String> answer) {
    return answer.headers().firstValue(QueryRoutes.REPLICA).orElseThrow();
  }

  /** The slug of a problem+json answer. */
  private static String problem(HttpResponse<String> answer) {
    assertThat(answer.headers().firstValue("Content-Type"))
        .as(answer.body())
        .hasValue("application/problem+json");
    String body = answer.body();
    int start = body.indexOf("/problems/") + "/problems/".length();
    return body.substring(start, body.indexOf('"', start));
  }

  private static void valid(String schema, HttpResponse<String> answer) {
    SchemaValidator.assertValid(
        GoldenSamples.schemaResource(schema), answer.body().getBytes(StandardCharsets.UTF_8));
  }

  static HttpResponse<String> get(TopologyProcess process, String path) throws Exception {
    return send(request(process, path).GET());
  }

  private static HttpRequest.Builder request(TopologyProcess process, String path) {
    return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + process.healthPort() + path))
        .timeout(Duration.ofSeconds(10));
  }

  /** Sends the request and checks the answer against the document, whatever its status. */
  private static HttpResponse<String> send(HttpRequest.Builder builder) throws Exception {
    HttpRequest request = builder.build();
    HttpResponse<String> answer = HTTP.send(request, HttpResponse.BodyHandlers.ofString());
    synchronized (contract) {
      contract.check(
          request.method(),
          request.uri().getRawPath(),
          answer.statusCode(),
          answer.headers().map(),
          answer.body().getBytes(StandardCharsets.UTF_8));
    }
    return answer;
  }

  /** Per device: a session opened and closed by reference (merged), and one left open. */
  private static void sendEvents() throws Exception {
    Properties props = new Properties();
    props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    try (KafkaProducer<String, byte[]> producer =
        new KafkaProducer<>(props, new StringSerializer(), new ByteArraySerializer())) {
      for (int i = 0; i < DEVICES; i++) {
        String device = "dev-" + i;
        send(producer, event(device, "s-a", DeviceEventType.Started, "ref-" + i + "-a", T0));
        send(
            producer,
            event(device, "f-a", DeviceEventType.Finished, "ref-" + i + "-a", T0.plusMinutes(30)));
        send(
            producer,
            event(device, "s-b", DeviceEventType.Started, "ref-" + i + "-b", T0.plusHours(1)));
      }
      producer.flush();
    }
  }

  private static DeviceEvent event(
      String device, String id, DeviceEventType type, String ref, OffsetDateTime at) {
    return new DeviceEvent(device, id, type, at, ref, null, Instant.now());
  }

  private static void send(KafkaProducer<String, byte[]> producer, DeviceEvent event)
      throws Exception {
    ProducerRecord<String, byte[]> record =
        new ProducerRecord<>(
            TopicCatalogue.DEVICE_EVENTS_RAW.baseName(),
            event.deviceId(),
            Json.mapper().writeValueAsBytes(event));
    record.headers().add(CloudEventHeaders.ID, event.eventId().getBytes(StandardCharsets.UTF_8));
    record
        .headers()
        .add(
            CloudEventHeaders.SOURCE,
            CloudEventHeaders.deviceSource(event.deviceId()).getBytes(StandardCharsets.UTF_8));
    producer.send(record).get();
  }

  /** A topic from the start, read_committed, until {@code count} records came (60 s at most). */
  private static List<ConsumerRecord<String, byte[]>> read(Topic topic, int count) {
    Properties props = new Properties();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    props.put(ConsumerConfig.GROUP_ID_CONFIG, "queries-it-" + System.nanoTime());
    props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    props.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false);
    List<ConsumerRecord<String, byte[]>> records = new ArrayList<>();
    try (KafkaConsumer<String, byte[]> consumer =
        new KafkaConsumer<>(props, new StringDeserializer(), new ByteArrayDeserializer())) {
      consumer.subscribe(Set.of(topic.baseName()));
      long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      while (records.size() < count && System.nanoTime() < deadline) {
        consumer.poll(Duration.ofMillis(200)).forEach(records::add);
      }
    }
    assertThat(records).as(topic.baseName()).hasSize(count);
    return records;
  }
}
