package dev.turnstile.bridge.adapter.http;

import dev.turnstile.bridge.adapter.http.Problems.Kind;
import dev.turnstile.bridge.application.BridgeMetrics;
import dev.turnstile.bridge.config.BridgeConfig;
import dev.turnstile.bridge.port.in.AcceptDeviceEventUseCase;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.ext.healthchecks.CheckResult;
import io.vertx.ext.healthchecks.HealthChecks;
import io.vertx.ext.healthchecks.Status;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * The HTTP side of the bridge: the device events route, health ({@code /health/live}, {@code
 * /health/ready}) and the Prometheus scrape ({@code /metrics}); every error as problem+json.
 */
public final class HttpBridgeServer {

  static final String EVENTS_PATH = "/api/v1/devices/:deviceId/events";

  private final HttpServer server;
  private volatile boolean listening;

  private HttpBridgeServer(HttpServer server) {
    this.server = server;
  }

  /**
   * Binds the server; the future completes once it listens.
   *
   * @param kafkaReachable cached answer of whether Kafka is reachable, read by readiness
   * @param scrape the Prometheus exposition text
   */
  public static Future<HttpBridgeServer> start(
      Vertx vertx,
      BridgeConfig config,
      AcceptDeviceEventUseCase useCase,
      BridgeMetrics metrics,
      BooleanSupplier kafkaReachable,
      Supplier<String> scrape) {
    HttpServer httpServer = vertx.createHttpServer(new HttpServerOptions());
    HttpBridgeServer bridge = new HttpBridgeServer(httpServer);
    Router router = bridge.router(vertx, config, useCase, metrics, kafkaReachable, scrape);
    return httpServer
        .requestHandler(router)
        .listen(config.httpPort(), config.httpHost())
        .map(
            s -> {
              bridge.listening = true;
              return bridge;
            });
  }

  private Router router(
      Vertx vertx,
      BridgeConfig config,
      AcceptDeviceEventUseCase useCase,
      BridgeMetrics metrics,
      BooleanSupplier kafkaReachable,
      Supplier<String> scrape) {
    Router router = Router.router(vertx);
    DeviceEventsHandler events =
        new DeviceEventsHandler(useCase, metrics, config.retryAfterSeconds());
    router
        .post(EVENTS_PATH)
        .consumes("application/json")
        .handler(BodyHandler.create(false).setBodyLimit(config.bodyLimitBytes()))
        .handler(events::handle);

    HealthChecks live = HealthChecks.create(vertx);
    live.register("process", promise -> promise.complete(Status.OK()));
    HealthChecks ready = HealthChecks.create(vertx);
    ready.register("http", promise -> promise.complete(listening ? Status.OK() : Status.KO()));
    ready.register(
        "kafka",
        promise -> promise.complete(kafkaReachable.getAsBoolean() ? Status.OK() : Status.KO()));
    router.get("/health/live").handler(ctx -> health(ctx, live));
    router.get("/health/ready").handler(ctx -> health(ctx, ready));
    router
        .get("/metrics")
        .handler(
            ctx ->
                ctx.response()
                    .putHeader("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
                    .end(scrape.get()));

    router.errorHandler(400, ctx -> problem(ctx, Kind.MALFORMED_JSON, metrics));
    router.errorHandler(404, ctx -> Problems.send(ctx, Kind.NOT_FOUND, "no such resource"));
    router.errorHandler(
        405, ctx -> Problems.send(ctx, Kind.METHOD_NOT_ALLOWED, "method not allowed here"));
    router.errorHandler(413, ctx -> problem(ctx, Kind.BODY_TOO_LARGE, metrics));
    router.errorHandler(415, ctx -> problem(ctx, Kind.UNSUPPORTED_MEDIA_TYPE, metrics));
    router.errorHandler(500, ctx -> Problems.send(ctx, Kind.INTERNAL, "unexpected error"));
    return router;
  }

  private static void problem(RoutingContext ctx, Kind kind, BridgeMetrics metrics) {
    metrics.rejected(kind.slug);
    String detail =
        switch (kind) {
          case BODY_TOO_LARGE -> "the body exceeds the configured limit";
          case UNSUPPORTED_MEDIA_TYPE -> "send Content-Type: application/json";
          default -> "the request is malformed";
        };
    Problems.send(ctx, kind, detail);
  }

  private static void health(RoutingContext ctx, HealthChecks checks) {
    checks
        .checkStatus()
        .onComplete(
            result -> {
              CheckResult check = result.succeeded() ? result.result() : null;
              boolean up = check != null && CheckResult.isUp(check);
              ctx.response()
                  .setStatusCode(up ? 200 : 503)
                  .putHeader("Content-Type", "application/json")
                  .end(
                      check == null
                          ? "{\"status\":\"DOWN\"}"
                          : check.toJson().put("status", up ? "UP" : "DOWN").encode());
            });
  }

  /** The bound port (useful when configured as 0). */
  public int port() {
    return server.actualPort();
  }

  /** Stops accepting connections and waits up to {@code timeout} for requests in progress. */
  public Future<Void> shutdown(Duration timeout) {
    listening = false;
    return server.shutdown(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }
}
