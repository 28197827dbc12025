package dev.turnstile.topology.adapter.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.turnstile.runtime.http.Problems;
import dev.turnstile.runtime.http.Problems.Kind;
import dev.turnstile.schemas.Identifier;
import dev.turnstile.schemas.Json;
import dev.turnstile.topology.port.in.QueryAnswer;
import dev.turnstile.topology.port.in.QueryDeviceSessionsUseCase;
import dev.turnstile.topology.port.in.QueryMergedDocumentUseCase;
import dev.turnstile.topology.port.in.QueryScope;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * The topology's read-only queries over HTTP.
 *
 * <ul>
 *   <li>{@code GET /api/v1/devices/{deviceId}/sessions}: 200 {@code device-sessions-view.v1} (empty
 *       lists for a device with nothing held); 400 {@code invalid-device-id}.
 *   <li>{@code GET /api/v1/merge/{mergeKey}}: 200 {@code merged-document-view.v1}; 404 {@code
 *       unknown-merge-key}; 400 {@code invalid-merge-key} (empty, or over {@value
 *       #MAX_MERGE_KEY_BYTES} UTF-8 bytes).
 * </ul>
 *
 * <p>Any instance answers any key. When the key's active task is elsewhere, the request is
 * forwarded once, with {@value #FORWARDED_BY}, to the owner's {@code application.server}; the owner
 * answers from its own state or with 503, never forwards again. Every answer carries {@value
 * #SERVED_BY} (the instance that read the state, or that answered 503) and, when read, {@value
 * #REPLICA} ({@code active} or {@code standby}). State not readable now (Kafka Streams not {@code
 * RUNNING}, no owner known, the owner unreachable within {@code topology.query.forward-timeout-ms},
 * an IQv2 failure): 503 {@code state-unavailable} with {@code Retry-After}.
 */
public final class QueryRoutes {

  /** Names the instance whose state answered. */
  public static final String SERVED_BY = "Turnstile-Served-By";

  /** On a forwarded query: the asking instance; the receiver answers from local state only. */
  public static final String FORWARDED_BY = "Turnstile-Forwarded-By";

  /** {@code active} or {@code standby}: which replica of the state answered. */
  public static final String REPLICA = "Turnstile-Replica";

  /** Seconds a client should wait before asking again after a 503. */
  public static final int RETRY_AFTER_SECONDS = 1;

  static final int MAX_MERGE_KEY_BYTES = 1024;

  static final String SESSIONS_PATH = "/api/v1/devices/:deviceId/sessions";
  static final String MERGE_PATH = "/api/v1/merge/:mergeKey";

  /** The use cases the routes answer through. */
  public record UseCases(
      QueryDeviceSessionsUseCase deviceSessions, QueryMergedDocumentUseCase mergedDocuments) {}

  private record Serving(UseCases useCases, String self, Duration forwardTimeout) {}

  private final Vertx vertx;
  private final WebClient client;
  private volatile Serving serving;

  QueryRoutes(Vertx vertx) {
    this.vertx = vertx;
    this.client =
        WebClient.create(
            vertx, new WebClientOptions().setUserAgentEnabled(false).setKeepAlive(true));
  }

  void serve(UseCases useCases, String self, Duration forwardTimeout) {
    this.serving = new Serving(useCases, self, forwardTimeout);
  }

  void mount(Router router) {
    router.get(SESSIONS_PATH).handler(this::deviceSessions);
    router.get(MERGE_PATH).handler(this::mergedDocument);
  }

  private void deviceSessions(RoutingContext ctx) {
    String deviceId = ctx.pathParam("deviceId");
    if (!Identifier.isValid(deviceId)) {
      Problems.send(ctx, Kind.INVALID_DEVICE_ID, "deviceId must be " + Identifier.RULE);
      return;
    }
    answer(ctx, (s, scope) -> s.useCases().deviceSessions().deviceSessions(deviceId, scope));
  }

  private void mergedDocument(RoutingContext ctx) {
    String mergeKey = ctx.pathParam("mergeKey");
    int bytes = mergeKey == null ? 0 : mergeKey.getBytes(StandardCharsets.UTF_8).length;
    if (bytes == 0 || bytes > MAX_MERGE_KEY_BYTES) {
      Problems.send(
          ctx,
          Kind.INVALID_MERGE_KEY,
          "the merge key must have 1.." + MAX_MERGE_KEY_BYTES + " UTF-8 bytes");
      return;
    }
    answer(ctx, (s, scope) -> s.useCases().mergedDocuments().mergedDocument(mergeKey, scope));
  }

  /** Runs one use case for the request's key. */
  private interface Ask {
    QueryAnswer<?> ask(Serving serving, QueryScope scope);
  }

  private void answer(RoutingContext ctx, Ask ask) {
    Serving now = serving;
    if (now == null) {
      unavailable(ctx, null, "the topology has not started its queries yet");
      return;
    }
    String forwardedBy = ctx.request().getHeader(FORWARDED_BY);
    QueryScope scope = forwardedBy == null ? QueryScope.ANY_INSTANCE : QueryScope.LOCAL_ONLY;
    // IQv2 reads RocksDB and the lag check asks the broker: not on the event loop.
    Callable<QueryAnswer<?>> read = () -> ask.ask(now, scope);
    vertx
        .executeBlocking(read, false)
        .onSuccess(answer -> respond(ctx, now, answer))
        .onFailure(ctx::fail);
  }

  private void respond(RoutingContext ctx, Serving now, QueryAnswer<?> answer) {
    HttpServerResponse response = ctx.response();
    if (answer instanceof QueryAnswer.Found<?> found) {
      byte[] body;
      try {
        body = Json.mapper().writeValueAsBytes(found.view());
      } catch (JsonProcessingException e) {
        ctx.fail(e);
        return;
      }
      response
          .putHeader(SERVED_BY, now.self())
          .putHeader(REPLICA, found.standby() ? "standby" : "active")
          .putHeader("Content-Type", "application/json")
          .putHeader("Cache-Control", "no-store")
          .end(Buffer.buffer(body));
    } else if (answer instanceof QueryAnswer.NotFound<?>) {
      response.putHeader(SERVED_BY, now.self()).putHeader(REPLICA, "active");
      Problems.send(ctx, Kind.UNKNOWN_MERGE_KEY, "no merged document is held for this key");
    } else if (answer instanceof QueryAnswer.OwnedBy<?> owner) {
      forward(ctx, now, owner.server());
    } else if (answer instanceof QueryAnswer.Unavailable<?> unavailable) {
      unavailable(ctx, now.self(), unavailable.reason());
    }
  }

  /** Asks the owner and relays its answer as it is, status, headers of interest and body. */
  private void forward(RoutingContext ctx, Serving now, String owner) {
    int colon = owner.lastIndexOf(':');
    String host = owner.substring(0, colon);
    int port = Integer.parseInt(owner.substring(colon + 1));
    client
        .get(port, host, ctx.request().uri())
        .putHeader(FORWARDED_BY, now.self())
        .timeout(now.forwardTimeout().toMillis())
        .send()
        .onSuccess(relayed -> relay(ctx, relayed))
        .onFailure(
            e ->
                unavailable(
                    ctx,
                    now.self(),
                    "the instance that owns the key (" + owner + ") did not answer: " + e));
  }

  private static void relay(RoutingContext ctx, HttpResponse<Buffer> relayed) {
    HttpServerResponse response = ctx.response().setStatusCode(relayed.statusCode());
    for (String header :
        List.of("Content-Type", SERVED_BY, REPLICA, "Retry-After", "Cache-Control")) {
      String value = relayed.getHeader(header);
      if (value != null) {
        response.putHeader(header, value);
      }
    }
    Buffer body = relayed.body();
    response.end(body == null ? Buffer.buffer() : body);
  }

  private static void unavailable(RoutingContext ctx, String self, String reason) {
    if (self != null) {
      ctx.response().putHeader(SERVED_BY, self);
    }
    ctx.response().putHeader("Retry-After", Integer.toString(RETRY_AFTER_SECONDS));
    Problems.send(ctx, Kind.STATE_UNAVAILABLE, reason);
  }
}
