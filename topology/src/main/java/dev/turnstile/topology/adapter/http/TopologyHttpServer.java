package dev.turnstile.topology.adapter.http;

import dev.turnstile.runtime.http.ApiDocumentRoutes;
import dev.turnstile.runtime.http.ConnectionReuse;
import dev.turnstile.runtime.http.InvalidRequests;
import dev.turnstile.runtime.http.Problems;
import dev.turnstile.runtime.http.Problems.Kind;
import dev.turnstile.schemas.ApiDocument;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * The topology process's HTTP server (Vert.x): {@code GET /health/live}, {@code GET /health/ready}
 * (200 or 503, body {@code {"status":"UP"|"DOWN","state":"..."}}), {@code GET /metrics} (Prometheus
 * text format), {@code GET /openapi/{file}} (its OpenAPI document {@code topology.v1.openapi.yaml}
 * and the JSON Schemas it references) and, once {@link #serveQueries} was called, the read-only
 * queries of {@link QueryRoutes}. Every error is {@code application/problem+json} ({@link
 * Problems}); every route is {@code GET} only (405 with {@code Allow: GET} otherwise). An answer
 * sent before a request's body was read, or to a chunked request, closes the connection ({@link
 * ConnectionReuse}); a request that is not valid HTTP/1.1 gets problem+json and a close ({@link
 * InvalidRequests}).
 */
public final class TopologyHttpServer implements AutoCloseable {

  /** A connection silent this long is closed: Vert.x has no idle timeout of its own. */
  static final Duration IDLE_TIMEOUT = Duration.ofSeconds(60);

  /**
   * What the probes and metrics read.
   *
   * @param live true while the process should be kept
   * @param ready true while it should receive traffic
   * @param state a word for the probe bodies, e.g. the Kafka Streams state
   * @param scrape the Prometheus text exposition
   */
  public record Probes(
      BooleanSupplier live,
      BooleanSupplier ready,
      Supplier<String> state,
      Supplier<String> scrape) {}

  private final Vertx vertx;
  private final HttpServer server;
  private final Router router;
  private final QueryRoutes queries;

  private TopologyHttpServer(Vertx vertx, HttpServer server, Router router, QueryRoutes queries) {
    this.vertx = vertx;
    this.server = server;
    this.router = router;
    this.queries = queries;
  }

  /**
   * Listens on {@code host:port} (0 = any free port) and returns once it does. The query routes
   * answer 503 until {@link #serveQueries} is called.
   *
   * @throws IllegalStateException when it cannot listen
   */
  public static TopologyHttpServer start(String host, int port, Probes probes) {
    Vertx vertx = Vertx.vertx();
    QueryRoutes queries = new QueryRoutes(vertx);
    Router router = router(vertx, probes, queries);
    HttpServer server =
        vertx.createHttpServer(
            new HttpServerOptions()
                .setIdleTimeoutUnit(TimeUnit.MILLISECONDS)
                .setIdleTimeout((int) IDLE_TIMEOUT.toMillis()));
    try {
      server
          .invalidRequestHandler(InvalidRequests.handler(kind -> {}))
          .requestHandler(router)
          .listen(port, host)
          .toCompletionStage()
          .toCompletableFuture()
          .get(30, TimeUnit.SECONDS);
    } catch (ExecutionException | TimeoutException e) {
      vertx.close();
      throw new IllegalStateException("cannot listen on " + host + ":" + port, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      vertx.close();
      throw new IllegalStateException("interrupted while starting to listen", e);
    }
    return new TopologyHttpServer(vertx, server, router, queries);
  }

  /**
   * From now on the query routes answer through {@code queries}.
   *
   * @param servedBy this instance's advertised {@code host:port}, sent as {@value
   *     QueryRoutes#SERVED_BY} with every query answer
   * @param forwardTimeout how long a query forwarded to the key's owner may take
   */
  public void serveQueries(QueryRoutes.UseCases queries, String servedBy, Duration forwardTimeout) {
    this.queries.serve(queries, servedBy, forwardTimeout);
  }

  public int port() {
    return server.actualPort();
  }

  /**
   * Every route the server answers, as {@code METHOD /path/{param}}, sorted: what {@code
   * topology.v1.openapi.yaml} must describe, no more, no less.
   */
  public List<String> routes() {
    return ApiDocumentRoutes.operations(router, Map.of());
  }

  private static Router router(Vertx vertx, Probes probes, QueryRoutes queries) {
    Router router = Router.router(vertx);
    ConnectionReuse.mount(router);
    router.get("/health/live").handler(ctx -> probe(ctx, probes.live(), probes.state()));
    router.get("/health/ready").handler(ctx -> probe(ctx, probes.ready(), probes.state()));
    router
        .get("/metrics")
        .handler(
            ctx ->
                vertx
                    .executeBlocking(() -> probes.scrape().get(), false)
                    .onSuccess(
                        text ->
                            ctx.response()
                                .putHeader(
                                    "Content-Type", "text/plain; version=0.0.4; charset=utf-8")
                                .end(text))
                    .onFailure(ctx::fail));
    queries.mount(router);
    ApiDocumentRoutes.mount(router, ApiDocument.TOPOLOGY);
    router.errorHandler(404, ctx -> Problems.send(ctx, Kind.NOT_FOUND, "no such resource"));
    router.errorHandler(
        405,
        ctx -> {
          ctx.response().putHeader("Allow", "GET");
          Problems.send(
              ctx,
              Kind.METHOD_NOT_ALLOWED,
              ctx.request().method().name() + " is not allowed here; use GET");
        });
    router.errorHandler(500, ctx -> Problems.send(ctx, Kind.INTERNAL, "unexpected error"));
    return router;
  }

  private static void probe(RoutingContext ctx, BooleanSupplier check, Supplier<String> state) {
    boolean up = check.getAsBoolean();
    ctx.response()
        .setStatusCode(up ? 200 : 503)
        .putHeader("Content-Type", "application/json")
        .end("{\"status\":\"" + (up ? "UP" : "DOWN") + "\",\"state\":\"" + state.get() + "\"}");
  }

  @Override
  public void close() {
    // Open connections (a client's keep-alive) are closed at once: nothing here is worth a drain.
    await(server.shutdown(0, TimeUnit.MILLISECONDS));
    await(vertx.close());
  }

  private static void await(Future<Void> done) {
    try {
      done.toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException e) {
      // Closing anyway: nothing to do about a server that does not close in time.
    }
  }
}
