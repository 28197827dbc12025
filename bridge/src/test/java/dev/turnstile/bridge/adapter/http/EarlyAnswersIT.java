package dev.turnstile.bridge.adapter.http;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.turnstile.bridge.BridgeApplication;
import dev.turnstile.bridge.application.auth.DeviceCredential;
import dev.turnstile.bridge.application.auth.DeviceCredential.Issued;
import dev.turnstile.bridge.config.BridgeConfigLoader;
import dev.turnstile.runtime.topics.TopicSpec;
import dev.turnstile.schemas.TopicCatalogue;
import dev.turnstile.testkit.EmbeddedKafka;
import dev.turnstile.testkit.http.EarlyAnswerCorpus;
import dev.turnstile.testkit.http.EarlyAnswerCorpus.EarlyAnswer;
import dev.turnstile.testkit.http.EarlyAnswerCorpus.Request;
import dev.turnstile.testkit.http.EarlyAnswerCorpus.Second;
import dev.turnstile.testkit.http.RawHttpConnection;
import dev.turnstile.testkit.http.RawHttpConnection.End;
import dev.turnstile.testkit.http.RawHttpConnection.Exchange;
import dev.turnstile.testkit.http.RawHttpConnection.Response;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 25, item 1: a final answer the bridge sends before it read the request's body must not
 * leave the connection in an undefined state. The general test is {@link EarlyAnswerCorpus} over
 * every early answer of the bridge (401 for a bad token and for a {@code Basic} authorization, 403,
 * 404, 405, 413, 415, 429, 431) with {@code GET /health/live} as the second request; then the
 * reported input itself, and a request with both {@code Transfer-Encoding} and {@code
 * Content-Length} (RFC 9112 §6.1). Before the fix, 64 of the 108 cases failed: the second request
 * was read as the missing body (400 for the rest of it, or held until the idle timeout). The rule
 * is {@link dev.turnstile.runtime.http.ConnectionReuse}.
 */
class EarlyAnswersIT {

  private static final String PREFIX = "early.";
  private static final int BODY_LIMIT = 1024;

  /** Far below the header, body and idle timeouts set below (10 s, 10 s, 20 s). */
  private static final Duration DEADLINE = Duration.ofSeconds(5);

  private static final Issued FLEET = DeviceCredential.issue("fleet-*");
  private static final Issued STATION = DeviceCredential.issue("station-1");
  private static final Second LIVE =
      new Second("GET /health/live HTTP/1.1\r\nHost: bridge\r\n\r\n", 200, "\"UP\"");
  private static final AtomicInteger DEVICES = new AtomicInteger();

  @TempDir static Path dir;
  private static EmbeddedKafka kafka;
  private static BridgeApplication bridge;

  @BeforeAll
  static void start() throws Exception {
    kafka = EmbeddedKafka.start(null);
    kafka.createTopics(
        List.of(TopicSpec.of(TopicCatalogue.DEVICE_EVENTS_RAW, PREFIX, (short) 1).toNewTopic()));
    Path credentials = dir.resolve("device-credentials");
    Files.write(credentials, List.of(FLEET.credential().line(), STATION.credential().line()));
    bridge =
        BridgeApplication.start(
            BridgeConfigLoader.fromMap(
                Map.ofEntries(
                    Map.entry("kafka.bootstrap.servers", kafka.bootstrapServers()),
                    Map.entry("topic.prefix", PREFIX),
                    Map.entry("bridge.http.host", "127.0.0.1"),
                    Map.entry("bridge.http.port", "0"),
                    Map.entry("bridge.http.event-loops", "2"),
                    Map.entry("bridge.http.body-limit-bytes", Integer.toString(BODY_LIMIT)),
                    Map.entry("bridge.http.header-timeout-ms", "10000"),
                    Map.entry("bridge.http.body-timeout-ms", "10000"),
                    Map.entry("bridge.http.idle-timeout-ms", "20000"),
                    Map.entry("bridge.auth.credentials-file", credentials.toString()),
                    // One request per device, then 429: every case has a device of its own.
                    Map.entry("bridge.rate-limit.requests-per-second", "1"),
                    Map.entry("bridge.rate-limit.burst", "1"))));
  }

  @AfterAll
  static void stop() {
    if (bridge != null) {
      bridge.close();
    }
    if (kafka != null) {
      kafka.close();
    }
  }

  @TestFactory
  Stream<DynamicTest> theSecondRequestIsAnsweredOrTheConnectionClosedNeverHeld() {
    List<EarlyAnswer> answers =
        List.of(
            events("bad bearer token", 401, "Bearer 0123456789abcdef.not-the-token", "", ""),
            events("Basic authorization", 401, "Basic ZGV2aWNlOnBhc3N3b3Jk", "", ""),
            events("another device's token", 403, "Bearer " + STATION.token(), "", ""),
            new EarlyAnswer(
                "no such resource",
                404,
                () -> new Request(head("POST", "/api/v1/no-such/thing", fleet(), json()), event())),
            new EarlyAnswer(
                "PUT on the events",
                405,
                () -> new Request(head("PUT", eventsPath(nextDevice()), fleet(), json()), event())),
            new EarlyAnswer(
                "body over the limit",
                413,
                () ->
                    new Request(
                        head("POST", eventsPath(nextDevice()), fleet(), json()), tooLarge())),
            events(
                "text/plain", 415, "Bearer " + FLEET.token(), "Content-Type: text/plain\r\n", ""),
            new EarlyAnswer(
                "device over its rate",
                429,
                () -> {
                  String device = nextDevice();
                  spendTheOneRequestOf(device);
                  return new Request(head("POST", eventsPath(device), fleet(), json()), event());
                }),
            events(
                "header fields too large",
                431,
                "Bearer " + FLEET.token(),
                json(),
                "X-Padding: " + "a".repeat(9_000) + "\r\n"));
    return EarlyAnswerCorpus.run(bridge.httpPort(), answers, LIVE, DEADLINE).stream()
        .map(
            verdict ->
                DynamicTest.dynamicTest(
                    verdict.name(),
                    () ->
                        assertThat(verdict.problems())
                            .as("%s, read: %s", verdict.name(), verdict.exchange())
                            .isEmpty()));
  }

  /**
   * The reported input: {@code Expect: 100-continue}, a {@code Content-Length} and a bad token get
   * 401 at once; the client sends no body and asks {@code GET /health/live} on the same connection.
   * Before the fix that request was read as the missing body: no answer, the socket held until the
   * idle timeout (60 s by default), no 408.
   */
  @Test
  void theReportedInputGetsItsAnswerAndAClose() throws Exception {
    try (RawHttpConnection connection = RawHttpConnection.open(bridge.httpPort())) {
      connection.send(
          "POST /api/v1/devices/station-1/events HTTP/1.1\r\nHost: bridge\r\n"
              + "Authorization: Bearer 0123456789abcdef.not-the-token\r\n"
              + "Content-Type: application/json\r\nContent-Length: 80\r\n"
              + "Expect: 100-continue\r\n\r\n");
      Exchange first = connection.read(1, DEADLINE);
      assertThat(first.interim()).as("no 100 Continue before a refusal").isZero();
      assertThat(first.responses()).extracting(Response::status).containsExactly(401);
      assertThat(first.responses().get(0).announcesClose()).isTrue();

      boolean sent = connection.send(LIVE.request());
      Exchange second = sent ? connection.read(1, DEADLINE) : null;

      assertThat(second == null || second.end() == End.CLOSED).as("closed").isTrue();
      assertThat(second == null ? List.of() : second.responses()).isEmpty();
    }
  }

  /**
   * RFC 9112 §6.1: a request with both {@code Transfer-Encoding: chunked} and {@code
   * Content-Length} may be answered by its chunks, but the connection must close after the answer.
   * Before the fix it was answered and the connection kept: the request pipelined behind it was
   * served. Now the answer says close and nothing more is served.
   */
  @Test
  void aRequestWithBothTransferEncodingAndContentLengthIsAnsweredThenTheConnectionCloses()
      throws Exception {
    String chunks = new String(event(), UTF_8);
    try (RawHttpConnection connection = RawHttpConnection.open(bridge.httpPort())) {
      connection.send(
          head("POST", eventsPath(nextDevice()), fleet(), json())
              + "Transfer-Encoding: chunked\r\nContent-Length: 4\r\n\r\n"
              + Integer.toHexString(chunks.length())
              + "\r\n"
              + chunks
              + "\r\n0\r\n\r\n"
              + LIVE.request());
      Exchange exchange = connection.read(2, DEADLINE);

      assertThat(exchange.end()).isEqualTo(End.CLOSED);
      assertThat(exchange.responses()).extracting(Response::status).containsExactly(202);
      assertThat(exchange.responses().get(0).announcesClose()).isTrue();
    }
  }

  /** An early answer on the events route that differs from a good request by its headers only. */
  private static EarlyAnswer events(
      String name, int status, String authorization, String contentType, String extra) {
    return new EarlyAnswer(
        name,
        status,
        () ->
            new Request(
                head(
                    "POST",
                    eventsPath(nextDevice()),
                    "Authorization: " + authorization + "\r\n",
                    (contentType.isEmpty() ? json() : contentType) + extra),
                event()));
  }

  private static String head(String method, String path, String authorization, String more) {
    return method + " " + path + " HTTP/1.1\r\nHost: bridge\r\n" + authorization + more;
  }

  private static String eventsPath(String device) {
    return "/api/v1/devices/" + device + "/events";
  }

  private static String nextDevice() {
    return "fleet-" + DEVICES.incrementAndGet();
  }

  private static String fleet() {
    return "Authorization: Bearer " + FLEET.token() + "\r\n";
  }

  private static String json() {
    return "Content-Type: application/json\r\n";
  }

  private static byte[] event() {
    return "{\"eventId\":\"e-1\",\"type\":\"Started\",\"occurredAt\":\"2014-11-18T15:40:26Z\"}"
        .getBytes(UTF_8);
  }

  private static byte[] tooLarge() {
    return ("{\"eventId\":\"e-1\",\"type\":\"Started\",\"occurredAt\":\"2014-11-18T15:40:26Z\","
            + "\"attributes\":{\"pad\":\""
            + "x".repeat(BODY_LIMIT)
            + "\"}}")
        .getBytes(UTF_8);
  }

  /**
   * Takes the device's one request (burst 1) with a 415, which reads no body and writes nothing.
   */
  private static void spendTheOneRequestOf(String device) throws IOException {
    try (RawHttpConnection connection = RawHttpConnection.open(bridge.httpPort())) {
      connection.send(
          head("POST", eventsPath(device), fleet(), "Content-Type: text/plain\r\n")
              + "Content-Length: 0\r\n\r\n");
      Exchange spent = connection.read(1, DEADLINE);
      if (spent.responses().size() != 1 || spent.responses().get(0).status() != 415) {
        throw new IOException("the rate limit of " + device + " was not spent: " + spent);
      }
    }
  }
}
