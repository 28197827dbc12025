package dev.turnstile.bridge.adapter.http;

import static dev.turnstile.bridge.config.BridgeConfigModel.HTTP_BATCH_BODY_LIMIT_BYTES;
import static dev.turnstile.bridge.config.BridgeConfigModel.HTTP_BATCH_MAX_EVENTS;
import static dev.turnstile.bridge.config.BridgeConfigModel.HTTP_BODY_LIMIT_BYTES;
import static dev.turnstile.bridge.config.BridgeConfigModel.HTTP_EVENT_LOOPS;
import static dev.turnstile.bridge.config.BridgeConfigModel.HTTP_HOST;
import static dev.turnstile.bridge.config.BridgeConfigModel.HTTP_PORT;
import static dev.turnstile.bridge.config.BridgeConfigModel.HTTP_RETRY_AFTER_SECONDS;

import dev.turnstile.bridge.config.BridgeConfig;
import dev.turnstile.bridge.config.BridgeConfig.HttpConnectionLimits;
import dev.turnstile.bridge.metrics.BridgeMetrics;
import dev.turnstile.bridge.port.in.AcceptDeviceEventUseCase;
import dev.turnstile.bridge.port.in.AuthorizeDeviceRequestUseCase;
import dev.turnstile.runtime.http.ApiDocumentRoutes;
import dev.turnstile.runtime.http.Problems;
import dev.turnstile.runtime.http.Problems.Kind;
import dev.turnstile.schemas.ApiDocument;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.net.ServerSSLOptions;
import io.vertx.ext.healthchecks.CheckResult;
import io.vertx.ext.healthchecks.HealthChecks;
import io.vertx.ext.healthchecks.Status;
import io.vertx.ext.web.Route;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import io.vertx.ext.web.handler.PlatformHandler;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * The HTTP side of the bridge: the device events routes, health ({@code /health/live}, {@code
 * /health/ready}) and the Prometheus scrape ({@code /metrics}); every error as problem+json. A
 * request to a device route passes {@link DeviceAccessHandler} (its token, then its device's rate
 * limit) before anything else, its body included, is read.
 *
 * <p>The server runs as {@code bridge.http.event-loops} instances of one verticle, each with its
 * own router on its own event loop, all listening on the same port: Vert.x binds the socket once
 * and hands each new connection to the next instance in turn. A connection stays on its instance's
 * event loop for its life, so its handlers run on one thread as before. What the instances share is
 * thread-safe: the use case, the meters, the connection guard's count.
 *
 * <p>With {@link ServerTls} the port speaks HTTPS only, and reloaded key material is handed to
 * every instance.
 */
public final class HttpBridgeServer {

  static final String EVENTS_PATH = "/api/v1/devices/:deviceId/events";

  /**
   * The batch resource, {@code .../events:batch} (a custom method in the style of Google's
   * AIP-136), routed by {@link #BATCH_REGEX}: a Vert.x path template would read {@code :batch} as a
   * parameter.
   */
  static final String BATCH_PATH = "/api/v1/devices/:deviceId/events:batch";

  static final String BATCH_REGEX = "/api/v1/devices/(?<deviceId>[^/]+)/events:batch";

  private final List<HttpServer> servers = new CopyOnWriteArrayList<>();
  private final List<Router> routers = new CopyOnWriteArrayList<>();
  private final Map<Route, String> regexTemplates = new ConcurrentHashMap<>();
  private volatile boolean listening;
  private volatile ServerTls tls;

  private HttpBridgeServer() {}

  /**
   * Deploys the server instances; the future completes once all of them listen.
   *
   * @param access authentication and rate limits of the device routes
   * @param kafkaReachable cached answer of whether Kafka is reachable, read by readiness
   * @param scrape the Prometheus exposition text
   * @param tls the HTTPS key material, kept current on every instance; {@code null}: plain HTTP
   */
  public static Future<HttpBridgeServer> start(
      Vertx vertx,
      BridgeConfig config,
      AuthorizeDeviceRequestUseCase access,
      AcceptDeviceEventUseCase useCase,
      BridgeMetrics metrics,
      BooleanSupplier kafkaReachable,
      Supplier<String> scrape,
      ServerTls tls) {
    HttpBridgeServer bridge = new HttpBridgeServer();
    ConnectionGuard guard = new ConnectionGuard(vertx, config.connectionLimits(), metrics);
    // Port 0 (any) would give each instance its own port; a negative port is Vert.x's "one random
    // port, shared by every server that asks for the same negative value".
    int port = config.get(HTTP_PORT) == 0 ? -1 : config.get(HTTP_PORT);
    return vertx
        .deployVerticle(
            () ->
                new VerticleBase() {
                  @Override
                  public Future<?> start() {
                    return bridge.listen(
                        vertx,
                        config,
                        tls,
                        port,
                        guard,
                        access,
                        useCase,
                        metrics,
                        kafkaReachable,
                        scrape);
                  }
                },
            new DeploymentOptions().setInstances(config.get(HTTP_EVENT_LOOPS)))
        .map(
            deployment -> {
              bridge.listening = true;
              if (tls != null) {
                bridge.tls = tls;
                tls.watch(bridge::updateTls);
              }
              return bridge;
            });
  }

  /**
   * Gives every instance new key material (Vert.x 5 {@code HttpServer.updateSSLOptions}): each
   * instance has its own SSL context, so all must get it or connections handed to a missed one
   * would still see the old certificate.
   */
  private Future<Void> updateTls(ServerSSLOptions options) {
    return Future.all(servers.stream().map(s -> s.updateSSLOptions(options.copy(), true)).toList())
        .mapEmpty();
  }

  /** One instance: its own server and router, on the event loop of the verticle it starts in. */
  private Future<HttpServer> listen(
      Vertx vertx,
      BridgeConfig config,
      ServerTls tls,
      int port,
      ConnectionGuard guard,
      AuthorizeDeviceRequestUseCase access,
      AcceptDeviceEventUseCase useCase,
      BridgeMetrics metrics,
      BooleanSupplier kafkaReachable,
      Supplier<String> scrape) {
    HttpConnectionLimits limits = config.connectionLimits();
    HttpServerOptions options =
        new HttpServerOptions()
            // Without h2c, Vert.x sets up HTTP/1.1 as a connection opens, so the connection
            // handler (and its header deadline) runs before the client sends a byte.
            .setHttp2ClearTextEnabled(false)
            .setIdleTimeoutUnit(TimeUnit.MILLISECONDS)
            .setIdleTimeout((int) limits.idleTimeout().toMillis());
    if (tls != null) {
      ServerSSLOptions ssl = tls.sslOptions();
      options
          .setSsl(true)
          .setKeyCertOptions(ssl.getKeyCertOptions())
          .setEnabledSecureTransportProtocols(ssl.getEnabledSecureTransportProtocols());
    }
    HttpServer httpServer = vertx.createHttpServer(options);
    servers.add(httpServer);
    Router router = router(vertx, config, access, useCase, metrics, kafkaReachable, scrape);
    return httpServer
        .connectionHandler(guard::connected)
        .invalidRequestHandler(request -> invalidRequest(request, metrics))
        .requestHandler(guard.guard(router))
        .listen(port, config.get(HTTP_HOST));
  }

  private Router router(
      Vertx vertx,
      BridgeConfig config,
      AuthorizeDeviceRequestUseCase access,
      AcceptDeviceEventUseCase useCase,
      BridgeMetrics metrics,
      BooleanSupplier kafkaReachable,
      Supplier<String> scrape) {
    Router router = Router.router(vertx);
    DeviceEventsHandler events =
        new DeviceEventsHandler(useCase, metrics, config.get(HTTP_RETRY_AFTER_SECONDS));
    DeviceAccessHandler door = new DeviceAccessHandler(access, metrics);
    router
        .post(EVENTS_PATH)
        .handler(door)
        .handler(new RequireJson(metrics))
        .handler(BodyHandler.create(false).setBodyLimit(config.get(HTTP_BODY_LIMIT_BYTES)))
        .handler(events::handle);
    DeviceEventBatchHandler batch =
        new DeviceEventBatchHandler(useCase, metrics, events, config.get(HTTP_BATCH_MAX_EVENTS));
    Route batchRoute =
        router
            .postWithRegex(BATCH_REGEX)
            .handler(door)
            .handler(new RequireJson(metrics))
            .handler(
                BodyHandler.create(false).setBodyLimit(config.get(HTTP_BATCH_BODY_LIMIT_BYTES)))
            .handler(batch::handle);

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
    ApiDocumentRoutes.mount(router, ApiDocument.BRIDGE);

    router.errorHandler(400, ctx -> problem(ctx, Kind.MALFORMED_REQUEST, metrics));
    router.errorHandler(404, ctx -> Problems.send(ctx, Kind.NOT_FOUND, "no such resource"));
    router.errorHandler(405, ctx -> methodNotAllowed(ctx, router, Map.of(batchRoute, BATCH_PATH)));
    router.errorHandler(
        413,
        ctx -> {
          metrics.rejected(Kind.BODY_TOO_LARGE.slug);
          long limit =
              matches(BATCH_PATH, ctx.normalizedPath())
                  ? config.get(HTTP_BATCH_BODY_LIMIT_BYTES)
                  : config.get(HTTP_BODY_LIMIT_BYTES);
          Problems.send(
              ctx, Kind.BODY_TOO_LARGE, "the body exceeds the limit of " + limit + " bytes");
        });
    router.errorHandler(415, ctx -> problem(ctx, Kind.UNSUPPORTED_MEDIA_TYPE, metrics));
    router.errorHandler(500, ctx -> Problems.send(ctx, Kind.INTERNAL, "unexpected error"));
    routers.add(router);
    regexTemplates.put(batchRoute, BATCH_PATH);
    return router;
  }

  /**
   * A request Vert.x could not decode (bad request line or header, line or headers over Vert.x's
   * limits of 4096 and 8192 bytes) gets the same problem+json as every other error, then the
   * connection is closed: what follows on it cannot be trusted to start a request.
   */
  private static void invalidRequest(HttpServerRequest request, BridgeMetrics metrics) {
    Throwable cause = request.decoderResult().cause();
    Kind kind;
    String detail;
    if (cause instanceof TooLongHttpLineException) {
      kind = Kind.URI_TOO_LONG;
      detail = "the request line is longer than the bridge reads";
    } else if (cause instanceof TooLongHttpHeaderException) {
      kind = Kind.HEADER_FIELDS_TOO_LARGE;
      detail = "the header fields are larger than the bridge reads";
    } else {
      kind = Kind.MALFORMED_REQUEST;
      detail =
          "the request is not valid HTTP/1.1"
              + (cause == null || cause.getMessage() == null ? "" : ": " + cause.getMessage());
    }
    metrics.rejected(kind.slug);
    request.response().putHeader("Connection", "close");
    Problems.send(request, kind, detail, null).onComplete(done -> request.connection().close());
  }

  private static void problem(RoutingContext ctx, Kind kind, BridgeMetrics metrics) {
    metrics.rejected(kind.slug);
    String detail =
        switch (kind) {
          case UNSUPPORTED_MEDIA_TYPE -> "send Content-Type: application/json";
          default ->
              "the request is malformed"
                  + (ctx.failure() == null || ctx.failure().getMessage() == null
                      ? ""
                      : ": " + ctx.failure().getMessage());
        };
    Problems.send(ctx, kind, detail);
  }

  /**
   * 415 before the body is read, for any Content-Type that is not UTF-8 JSON, or a body with a
   * Content-Encoding (compressed): the bridge reads bodies as sent. A platform handler because
   * Vert.x runs those ahead of the body handler.
   */
  private record RequireJson(BridgeMetrics metrics) implements PlatformHandler {
    @Override
    public void handle(RoutingContext ctx) {
      String framing = framingProblem(ctx.request());
      if (framing != null) {
        metrics.rejected(Kind.MALFORMED_REQUEST.slug);
        ctx.response().putHeader("Connection", "close");
        Problems.send(ctx.request(), Kind.MALFORMED_REQUEST, framing, null)
            .onComplete(sent -> ctx.request().connection().close());
        return;
      }
      List<String> contentTypes = ctx.request().headers().getAll("Content-Type");
      String problem =
          contentTypes.size() > 1
              ? "send one Content-Type, not " + contentTypes.size()
              : JsonMediaType.problem(ctx.request().getHeader("Content-Type"));
      String encoding = ctx.request().getHeader("Content-Encoding");
      if (problem == null && encoding != null && !encoding.trim().equalsIgnoreCase("identity")) {
        // RFC 9110 §15.5.16: 415 also covers a content coding the server does not accept.
        problem = "Content-Encoding " + encoding + " is not supported: send the body uncompressed";
      }
      if (problem == null) {
        ctx.next();
        return;
      }
      metrics.rejected(Kind.UNSUPPORTED_MEDIA_TYPE.slug);
      Problems.send(ctx, Kind.UNSUPPORTED_MEDIA_TYPE, problem);
    }
  }

  /**
   * RFC 9112 §6.1 and §6.3: a request whose Transfer-Encoding does not end in chunked cannot be
   * framed and must get 400 and a close; one with both Transfer-Encoding and Content-Length is the
   * shape of request smuggling and is refused too (Netty may already have dropped the
   * Content-Length, then the chunked body is read and the connection closed after the answer).
   */
  private static String framingProblem(HttpServerRequest request) {
    String transferEncoding = request.getHeader("Transfer-Encoding");
    if (transferEncoding == null) {
      return null;
    }
    if (!transferEncoding.trim().toLowerCase(java.util.Locale.ROOT).endsWith("chunked")) {
      return "Transfer-Encoding " + transferEncoding + " does not end in chunked";
    }
    if (request.getHeader("Content-Length") != null) {
      return "both Transfer-Encoding and Content-Length";
    }
    return null;
  }

  /**
   * RFC 9110 §15.5.6: a 405 lists the methods the resource does support in {@code Allow}.
   *
   * @param templates the path template of each route routed by a regular expression
   */
  private static void methodNotAllowed(
      RoutingContext ctx, Router router, Map<Route, String> templates) {
    String path = ctx.normalizedPath();
    Set<String> allowed = new TreeSet<>();
    for (Route route : router.getRoutes()) {
      String template = route.getPath() != null ? route.getPath() : templates.get(route);
      if (template != null && route.methods() != null && matches(template, path)) {
        route.methods().forEach(method -> allowed.add(method.name()));
      }
    }
    if (!allowed.isEmpty()) {
      ctx.response().putHeader("Allow", String.join(", ", allowed));
    }
    Problems.send(
        ctx,
        Kind.METHOD_NOT_ALLOWED,
        allowed.isEmpty()
            ? "method not allowed here"
            : ctx.request().method().name()
                + " is not allowed here; use "
                + String.join(", ", allowed));
  }

  /** Whether a route path ({@code /a/:param/b}) matches a request path. */
  static boolean matches(String routePath, String requestPath) {
    String[] route = routePath.split("/", -1);
    String[] request = requestPath.split("/", -1);
    if (route.length != request.length) {
      return false;
    }
    for (int i = 0; i < route.length; i++) {
      boolean parameter = route[i].startsWith(":") && !request[i].isEmpty();
      if (!parameter && !route[i].equals(request[i])) {
        return false;
      }
    }
    return true;
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

  /**
   * Every route the server answers, as {@code METHOD /path/{param}} in OpenAPI's path template
   * form, sorted: what {@code bridge.v1.openapi.yaml} must describe, no more, no less.
   */
  public List<String> routes() {
    return ApiDocumentRoutes.operations(routers.get(0), regexTemplates);
  }

  /** The bound port (useful when configured as 0). */
  public int port() {
    return servers.get(0).actualPort();
  }

  /**
   * Stops accepting connections on every instance and waits up to {@code timeout} for requests in
   * progress.
   */
  public Future<Void> shutdown(Duration timeout) {
    listening = false;
    if (tls != null) {
      tls.close();
    }
    return Future.all(
            servers.stream()
                .map(server -> server.shutdown(timeout.toMillis(), TimeUnit.MILLISECONDS))
                .toList())
        .mapEmpty();
  }
}
