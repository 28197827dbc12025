package dev.turnstile.topology.adapter.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.turnstile.schemas.Json;
import dev.turnstile.testkit.http.EarlyAnswerCorpus;
import dev.turnstile.testkit.http.EarlyAnswerCorpus.EarlyAnswer;
import dev.turnstile.testkit.http.EarlyAnswerCorpus.Request;
import dev.turnstile.testkit.http.EarlyAnswerCorpus.Second;
import dev.turnstile.testkit.http.EarlyAnswerCorpus.Verdict;
import dev.turnstile.testkit.http.RawHttpConnection;
import dev.turnstile.topology.domain.merge.MergeVersion;
import dev.turnstile.topology.port.in.DeviceSessionsView;
import dev.turnstile.topology.port.in.MergedDocumentView;
import dev.turnstile.topology.port.in.QueryAnswer;
import dev.turnstile.topology.port.in.QueryScope;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * The topology's HTTP server over real loopback HTTP: probes, metrics, the problem+json answers,
 * and the query routes over fake use cases (our own ports), including a forward to a second server.
 */
class TopologyHttpServerTest {

  final HttpClient http = HttpClient.newHttpClient();
  static final TopologyHttpServer.Probes UP =
      new TopologyHttpServer.Probes(() -> true, () -> true, () -> "RUNNING", () -> "");

  @Test
  void probesFollowTheirChecksAndMetricsAreServed() throws Exception {
    AtomicBoolean ready = new AtomicBoolean(false);
    try (TopologyHttpServer server =
        TopologyHttpServer.start(
            "127.0.0.1",
            0,
            new TopologyHttpServer.Probes(
                () -> true, ready::get, () -> "REBALANCING", () -> "m_total 1\n"))) {
      assertThat(get(server, "/health/live").statusCode()).isEqualTo(200);
      HttpResponse<String> notReady = get(server, "/health/ready");
      assertThat(notReady.statusCode()).isEqualTo(503);
      assertThat(notReady.body()).contains("\"state\":\"REBALANCING\"");

      ready.set(true);
      assertThat(get(server, "/health/ready").statusCode()).isEqualTo(200);
      HttpResponse<String> metrics = get(server, "/metrics");
      assertThat(metrics.body()).isEqualTo("m_total 1\n");
      assertThat(metrics.headers().firstValue("Content-Type"))
          .hasValue("text/plain; version=0.0.4; charset=utf-8");
    }
  }

  @Test
  void otherMethodsAndPathsAreProblems() throws Exception {
    try (TopologyHttpServer server = TopologyHttpServer.start("127.0.0.1", 0, UP)) {
      HttpResponse<String> post =
          http.send(
              HttpRequest.newBuilder(uri(server, "/metrics"))
                  .POST(HttpRequest.BodyPublishers.noBody())
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(post.statusCode()).isEqualTo(405);
      assertThat(post.headers().firstValue("Allow")).hasValue("GET");
      assertProblem(post, "method-not-allowed");
      assertProblem(get(server, "/nothing"), "not-found");
    }
  }

  /**
   * Issue 25, item 1, for the topology's server: every answer it gives before reading a body (404,
   * 405, a 503 query, a 200 probe asked with a body, 431) leaves the connection answered on or
   * closed, never reading the next request as the body and never held.
   */
  @TestFactory
  Stream<DynamicTest> anAnswerBeforeTheBodyNeverLeavesTheConnectionUndefined() {
    byte[] body = "{\"q\":1}".getBytes(StandardCharsets.UTF_8);
    String host = "Host: topology\r\nContent-Type: application/json\r\n";
    List<EarlyAnswer> answers =
        List.of(
            early("no such resource", 404, "POST /nothing HTTP/1.1\r\n" + host, body),
            early("POST on a probe", 405, "POST /metrics HTTP/1.1\r\n" + host, body),
            early("query before queries", 503, "GET /api/v1/merge/k-1 HTTP/1.1\r\n" + host, body),
            early("probe asked with a body", 200, "GET /health/ready HTTP/1.1\r\n" + host, body),
            early(
                "header fields too large",
                431,
                "GET /health/live HTTP/1.1\r\n" + host + "X-Padding: " + "a".repeat(9_000) + "\r\n",
                body));
    Second live = new Second("GET /health/live HTTP/1.1\r\nHost: topology\r\n\r\n", 200, "UP");
    List<Verdict> verdicts;
    try (TopologyHttpServer server = TopologyHttpServer.start("127.0.0.1", 0, UP)) {
      verdicts = EarlyAnswerCorpus.run(server.port(), answers, live, Duration.ofSeconds(5));
    }
    return verdicts.stream()
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
   * The rule is HTTP/1.1's: over h2c (the JDK client's default upgrade) a request whose body no
   * route reads ends its stream, not the connection that carries the others.
   */
  @Test
  void anHttp2ConnectionOutlivesAnAnswerBeforeItsBody() throws Exception {
    HttpClient h2c = HttpClient.newBuilder().version(HttpClient.Version.HTTP_2).build();
    try (TopologyHttpServer server = TopologyHttpServer.start("127.0.0.1", 0, UP)) {
      HttpResponse<String> upgraded =
          h2c.send(
              HttpRequest.newBuilder(uri(server, "/health/live")).build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(upgraded.version()).isEqualTo(HttpClient.Version.HTTP_2);
      HttpResponse<String> post =
          h2c.send(
              HttpRequest.newBuilder(uri(server, "/metrics"))
                  .POST(HttpRequest.BodyPublishers.ofString("{\"q\":1}"))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(post.statusCode()).isEqualTo(405);
      assertThat(post.version()).isEqualTo(HttpClient.Version.HTTP_2);
      assertThat(
              h2c.send(
                      HttpRequest.newBuilder(uri(server, "/health/ready")).build(),
                      HttpResponse.BodyHandlers.ofString())
                  .statusCode())
          .isEqualTo(200);
    }
  }

  /** RFC 9112 §6.1: a chunked request (perhaps with a Content-Length Netty dropped) ends it. */
  @Test
  void aChunkedRequestIsAnsweredThenTheConnectionCloses() throws Exception {
    try (TopologyHttpServer server = TopologyHttpServer.start("127.0.0.1", 0, UP);
        RawHttpConnection connection = RawHttpConnection.open(server.port())) {
      connection.send(
          "GET /health/live HTTP/1.1\r\nHost: topology\r\nTransfer-Encoding: chunked\r\n"
              + "Content-Length: 3\r\n\r\n2\r\n{}\r\n0\r\n\r\n"
              + "GET /health/ready HTTP/1.1\r\nHost: topology\r\n\r\n");
      RawHttpConnection.Exchange exchange = connection.read(2, Duration.ofSeconds(5));
      assertThat(exchange.end()).isEqualTo(RawHttpConnection.End.CLOSED);
      assertThat(exchange.responses()).hasSize(1);
      assertThat(exchange.responses().get(0).status()).isEqualTo(200);
      assertThat(exchange.responses().get(0).announcesClose()).isTrue();
    }
  }

  private static EarlyAnswer early(String name, int status, String head, byte[] body) {
    return new EarlyAnswer(name, status, () -> new Request(head, body));
  }

  @Test
  void queriesAnswer503UntilTheyAreServed() throws Exception {
    try (TopologyHttpServer server = TopologyHttpServer.start("127.0.0.1", 0, UP)) {
      HttpResponse<String> early = get(server, "/api/v1/merge/k-1");
      assertThat(early.statusCode()).isEqualTo(503);
      assertThat(early.headers().firstValue("Retry-After")).hasValue("1");
      assertProblem(early, "state-unavailable");
    }
  }

  @Test
  void badKeysAreRefusedBeforeAnyRead() throws Exception {
    List<String> asked = new CopyOnWriteArrayList<>();
    try (TopologyHttpServer server = TopologyHttpServer.start("127.0.0.1", 0, UP)) {
      server.serveQueries(recording(asked, null), "127.0.0.1:1", Duration.ofSeconds(1));
      HttpResponse<String> device = get(server, "/api/v1/devices/bad%20id/sessions");
      assertThat(device.statusCode()).isEqualTo(400);
      assertProblem(device, "invalid-device-id");
      HttpResponse<String> merge = get(server, "/api/v1/merge/" + "k".repeat(1025));
      assertThat(merge.statusCode()).isEqualTo(400);
      assertProblem(merge, "invalid-merge-key");
      assertThat(asked).isEmpty();
    }
  }

  @Test
  void aLocalAnswerNamesItsServerAndReplica() throws Exception {
    List<String> asked = new CopyOnWriteArrayList<>();
    try (TopologyHttpServer server = TopologyHttpServer.start("127.0.0.1", 0, UP)) {
      server.serveQueries(recording(asked, null), "a:1", Duration.ofSeconds(1));
      HttpResponse<String> sessions = get(server, "/api/v1/devices/station-1/sessions");
      assertThat(sessions.statusCode()).isEqualTo(200);
      assertThat(sessions.headers().firstValue(QueryRoutes.SERVED_BY)).hasValue("a:1");
      assertThat(sessions.headers().firstValue(QueryRoutes.REPLICA)).hasValue("active");
      assertThat(json(sessions).path("deviceId").asText()).isEqualTo("station-1");

      HttpResponse<String> missing = get(server, "/api/v1/merge/unknown");
      assertThat(missing.statusCode()).isEqualTo(404);
      assertProblem(missing, "unknown-merge-key");
      assertThat(asked)
          .containsExactly("sessions station-1 ANY_INSTANCE", "merge unknown ANY_INSTANCE");
    }
  }

  @Test
  void aKeyOwnedElsewhereIsForwardedOnceAndTheOwnersAnswerRelayed() throws Exception {
    List<String> askedOwner = new CopyOnWriteArrayList<>();
    List<String> askedFront = new CopyOnWriteArrayList<>();
    try (TopologyHttpServer owner = TopologyHttpServer.start("127.0.0.1", 0, UP);
        TopologyHttpServer front = TopologyHttpServer.start("127.0.0.1", 0, UP)) {
      String ownerName = "127.0.0.1:" + owner.port();
      // The owner's metadata disagrees (a rebalance): it names the front, yet must not forward.
      owner.serveQueries(
          recording(askedOwner, "127.0.0.1:" + front.port()), ownerName, Duration.ofSeconds(2));
      front.serveQueries(recording(askedFront, ownerName), "front:1", Duration.ofSeconds(2));

      HttpResponse<String> answer = get(front, "/api/v1/merge/k-1");

      assertThat(askedFront).containsExactly("merge k-1 ANY_INSTANCE");
      assertThat(askedOwner).containsExactly("merge k-1 LOCAL_ONLY");
      assertThat(answer.statusCode()).isEqualTo(503);
      assertThat(answer.headers().firstValue(QueryRoutes.SERVED_BY)).hasValue(ownerName);
      assertThat(answer.headers().firstValue("Retry-After")).hasValue("1");
      assertProblem(answer, "state-unavailable");
    }
  }

  @Test
  void anUnreachableOwnerIs503() throws Exception {
    int closed;
    try (ServerSocket socket = new ServerSocket(0)) {
      closed = socket.getLocalPort();
    }
    try (TopologyHttpServer front = TopologyHttpServer.start("127.0.0.1", 0, UP)) {
      front.serveQueries(
          recording(new CopyOnWriteArrayList<>(), "127.0.0.1:" + closed),
          "front:1",
          Duration.ofSeconds(2));
      HttpResponse<String> answer = get(front, "/api/v1/devices/station-1/sessions");
      assertThat(answer.statusCode()).isEqualTo(503);
      assertThat(answer.headers().firstValue(QueryRoutes.SERVED_BY)).hasValue("front:1");
      assertThat(json(answer).path("detail").asText()).contains("127.0.0.1:" + closed);
    }
  }

  /**
   * Use cases that record what they were asked; with {@code owner} set, a key asked in any scope is
   * owned there, and a forwarded one is unavailable (metadata says elsewhere, not active here).
   */
  private static QueryRoutes.UseCases recording(List<String> asked, String owner) {
    return new QueryRoutes.UseCases(
        (deviceId, scope) -> {
          asked.add("sessions " + deviceId + " " + scope);
          if (owner != null) {
            return elsewhere(owner, scope);
          }
          return new QueryAnswer.Found<>(
              new DeviceSessionsView(deviceId, Instant.EPOCH, List.of(), List.of()), false);
        },
        (mergeKey, scope) -> {
          asked.add("merge " + mergeKey + " " + scope);
          if (owner != null) {
            return elsewhere(owner, scope);
          }
          if (mergeKey.equals("unknown")) {
            return new QueryAnswer.NotFound<>();
          }
          return new QueryAnswer.Found<>(
              new MergedDocumentView(
                  mergeKey,
                  "0".repeat(64),
                  MergeVersion.explicit(1, "s", "e"),
                  Json.mapper().createObjectNode(),
                  1,
                  List.of("s"),
                  Instant.EPOCH),
              false);
        });
  }

  private static <T> QueryAnswer<T> elsewhere(String owner, QueryScope scope) {
    return scope == QueryScope.LOCAL_ONLY
        ? new QueryAnswer.Unavailable<>("not active here")
        : new QueryAnswer.OwnedBy<>(owner);
  }

  private static void assertProblem(HttpResponse<String> response, String slug) throws Exception {
    assertThat(response.headers().firstValue("Content-Type")).hasValue("application/problem+json");
    JsonNode body = json(response);
    assertThat(body.path("type").asText()).isEqualTo("https://turnstile.dev/problems/" + slug);
    assertThat(body.path("status").asInt()).isEqualTo(response.statusCode());
  }

  private static JsonNode json(HttpResponse<String> response) throws Exception {
    return Json.mapper().readTree(response.body());
  }

  private URI uri(TopologyHttpServer server, String path) {
    return URI.create("http://127.0.0.1:" + server.port() + path);
  }

  private HttpResponse<String> get(TopologyHttpServer server, String path) throws Exception {
    return http.send(
        HttpRequest.newBuilder(uri(server, path)).build(), HttpResponse.BodyHandlers.ofString());
  }
}
