package dev.turnstile.runtime.http;

import dev.turnstile.schemas.Violation;
import io.vertx.core.Future;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import java.util.List;

/**
 * Every error of Turnstile's HTTP APIs (the bridge's device API, the topology's queries) in one
 * shape: RFC 9457 {@code application/problem+json} with {@code type} ({@value #TYPE_BASE} + the
 * kind's slug), {@code title}, {@code status}, {@code detail}, {@code instance} (the request path)
 * and, for a body that breaks a schema, {@code errors} ({@code pointer}, {@code keyword}, {@code
 * message}). Shared by both processes so that a client handles one shape.
 */
public final class Problems {

  public static final String CONTENT_TYPE = "application/problem+json";
  public static final String TYPE_BASE = "https://turnstile.dev/problems/";

  private Problems() {}

  /** A problem kind: its URI slug, HTTP status and title. */
  public enum Kind {
    MALFORMED_JSON("malformed-json", 400, "Malformed JSON"),
    MALFORMED_REQUEST("malformed-request", 400, "Malformed HTTP request"),
    INVALID_DEVICE_ID("invalid-device-id", 400, "Invalid device ID"),
    UNAUTHENTICATED("unauthenticated", 401, "Device not authenticated"),
    FORBIDDEN("forbidden", 403, "Not allowed for this device"),
    NOT_FOUND("not-found", 404, "Not found"),
    METHOD_NOT_ALLOWED("method-not-allowed", 405, "Method not allowed"),
    REQUEST_TIMEOUT("request-timeout", 408, "Request timeout"),
    BODY_TOO_LARGE("body-too-large", 413, "Body too large"),
    URI_TOO_LONG("uri-too-long", 414, "URI too long"),
    UNSUPPORTED_MEDIA_TYPE("unsupported-media-type", 415, "Unsupported media type"),
    INVALID_EVENT("invalid-event", 422, "Invalid event"),
    INVALID_BATCH("invalid-batch", 422, "Invalid batch"),
    RATE_LIMITED("rate-limited", 429, "Too many requests from this device"),
    /**
     * The client's address failed authentication too often: its requests are turned away, before
     * their credentials are checked, until {@code Retry-After}.
     */
    AUTHENTICATION_THROTTLED(
        "authentication-throttled", 429, "Too many failed authentications from this address"),
    HEADER_FIELDS_TOO_LARGE("header-fields-too-large", 431, "Request header fields too large"),
    JSON_LIMIT_EXCEEDED("json-limit-exceeded", 422, "JSON beyond a documented limit"),
    KAFKA_UNAVAILABLE("kafka-unavailable", 503, "Event log unavailable"),
    SATURATED("saturated", 503, "Too many events in flight"),
    NOT_WRITTEN("not-written", 500, "Event could not be written"),
    INTERNAL("internal", 500, "Internal error"),
    /** Topology queries: a merge key that is empty or longer than the query accepts. */
    INVALID_MERGE_KEY("invalid-merge-key", 400, "Invalid merge key"),
    /** Topology queries: no merged document is held for this merge key. */
    UNKNOWN_MERGE_KEY("unknown-merge-key", 404, "Unknown merge key"),
    /**
     * Topology queries: the state that answers is not queryable now (rebalancing, restoring, its
     * owner unreachable); ask again after {@code Retry-After}.
     */
    STATE_UNAVAILABLE("state-unavailable", 503, "State not queryable now");

    public final String slug;
    public final int status;
    public final String title;

    Kind(String slug, int status, String title) {
      this.slug = slug;
      this.status = status;
      this.title = title;
    }
  }

  /** Answers with the problem; {@code detail} says what was wrong with this request. */
  public static void send(RoutingContext ctx, Kind kind, String detail) {
    send(ctx, kind, detail, null);
  }

  /** As {@link #send(RoutingContext, Kind, String)}, listing each schema violation. */
  public static void send(
      RoutingContext ctx, Kind kind, String detail, List<Violation> violations) {
    send(ctx.request(), kind, detail, violations);
  }

  /** Answers the request with the problem; the future completes once it is written. */
  public static Future<Void> send(
      HttpServerRequest request, Kind kind, String detail, List<Violation> violations) {
    HttpServerResponse response = request.response();
    if (response.ended() || response.closed()) {
      return Future.succeededFuture();
    }
    JsonObject body =
        new JsonObject()
            .put("type", TYPE_BASE + kind.slug)
            .put("title", kind.title)
            .put("status", kind.status)
            .put("detail", detail)
            .put("instance", request.path());
    if (violations != null) {
      JsonArray errors = new JsonArray();
      violations.forEach(
          v ->
              errors.add(
                  new JsonObject()
                      .put("pointer", v.pointer())
                      .put("keyword", v.keyword())
                      .put("message", v.message())));
      body.put("errors", errors);
    }
    return response
        .setStatusCode(kind.status)
        .putHeader("Content-Type", CONTENT_TYPE)
        .end(body.encode());
  }
}
