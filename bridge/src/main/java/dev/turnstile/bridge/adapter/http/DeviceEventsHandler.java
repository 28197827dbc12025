package dev.turnstile.bridge.adapter.http;

import com.fasterxml.jackson.databind.JsonNode;
import dev.turnstile.bridge.metrics.BridgeMetrics;
import dev.turnstile.bridge.port.in.AcceptDeviceEventUseCase;
import dev.turnstile.bridge.port.in.AcceptDeviceEventUseCase.AcceptDeviceEventCommand;
import dev.turnstile.bridge.port.in.AcceptDeviceEventUseCase.Accepted;
import dev.turnstile.bridge.port.in.AcceptDeviceEventUseCase.Duplicate;
import dev.turnstile.bridge.port.in.AcceptDeviceEventUseCase.InvalidDeviceEventException;
import dev.turnstile.bridge.port.in.AcceptDeviceEventUseCase.Outcome;
import dev.turnstile.bridge.port.in.AcceptDeviceEventUseCase.Read;
import dev.turnstile.bridge.port.out.PublishException;
import dev.turnstile.runtime.http.Problems;
import dev.turnstile.runtime.http.Problems.Kind;
import dev.turnstile.schemas.Identifier;
import dev.turnstile.schemas.StrictJson.MalformedJsonException;
import dev.turnstile.schemas.Violation;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import java.util.List;
import java.util.concurrent.CompletionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code POST /api/v1/devices/{deviceId}/events}: checks the request, hands it to the use case and
 * answers only once the outcome is known (after Kafka's ack for a 202).
 */
final class DeviceEventsHandler {

  private static final Logger LOG = LoggerFactory.getLogger(DeviceEventsHandler.class);

  private final AcceptDeviceEventUseCase useCase;
  private final BridgeMetrics metrics;
  private final RequestSchema schema = new RequestSchema();
  private final int retryAfterSeconds;

  DeviceEventsHandler(
      AcceptDeviceEventUseCase useCase, BridgeMetrics metrics, int retryAfterSeconds) {
    this.useCase = useCase;
    this.metrics = metrics;
    this.retryAfterSeconds = retryAfterSeconds;
  }

  void handle(RoutingContext ctx) {
    String deviceId = deviceId(ctx);
    JsonNode body = deviceId == null ? null : body(ctx);
    if (body == null) {
      return;
    }
    List<Violation> violations = schema.violations(body);
    if (!violations.isEmpty()) {
      metrics.rejected("schema");
      Problems.send(ctx, Kind.INVALID_EVENT, "the body breaks the request schema", violations);
      return;
    }
    Read read = AcceptDeviceEventCommand.read(deviceId, body, DeviceAccessHandler.sender(ctx));
    if (read.command() == null) {
      metrics.rejected("semantic");
      Problems.send(ctx, Kind.INVALID_EVENT, "the event breaks a rule", read.violations());
      return;
    }
    Future.fromCompletionStage(useCase.accept(read.command()), ctx.vertx().getOrCreateContext())
        .onComplete(
            result -> {
              if (result.succeeded()) {
                answer(ctx, result.result());
              } else {
                fail(ctx, result.cause());
              }
            });
  }

  /** The path's deviceId; {@code null} once the request is answered 400 for a bad one. */
  String deviceId(RoutingContext ctx) {
    String deviceId = ctx.pathParam("deviceId");
    if (!Identifier.isValid(deviceId)) {
      reject(ctx, "bad-device-id", Kind.INVALID_DEVICE_ID, "deviceId must be " + Identifier.RULE);
      return null;
    }
    return deviceId;
  }

  /**
   * The body read by the strict reader; {@code null} once the request is answered for an empty or
   * malformed one, or one past a JSON limit.
   */
  JsonNode body(RoutingContext ctx) {
    return body(ctx, false);
  }

  /**
   * As {@link #body(RoutingContext)}; a batch's events may each nest as deep as one alone ({@link
   * RequestJson#readBatch}).
   */
  JsonNode body(RoutingContext ctx, boolean batch) {
    try {
      Buffer buffer = ctx.body().buffer();
      if (buffer == null || buffer.length() == 0) {
        reject(ctx, "malformed-json", Kind.MALFORMED_JSON, "the body is empty");
        return null;
      }
      byte[] bytes = buffer.getBytes();
      return batch ? RequestJson.readBatch(bytes) : RequestJson.read(bytes);
    } catch (MalformedJsonException e) {
      refuseJson(ctx, e);
      return null;
    }
  }

  /**
   * Well-formed JSON past a documented bound of {@link dev.turnstile.schemas.StrictJson} is
   * understood but refused (422, the limit as keyword, where as pointer); bytes that are not I-JSON
   * are malformed (400).
   */
  private void refuseJson(RoutingContext ctx, MalformedJsonException e) {
    if (e.limit().isEmpty()) {
      reject(ctx, "malformed-json", Kind.MALFORMED_JSON, "the body is not JSON: " + e.getMessage());
      return;
    }
    metrics.rejected(Kind.JSON_LIMIT_EXCEEDED.slug);
    Problems.send(
        ctx,
        Kind.JSON_LIMIT_EXCEEDED,
        "the body passes a limit: " + e.getMessage(),
        List.of(new Violation(e.pointer().orElse(""), e.limit().get().keyword(), e.getMessage())));
  }

  void reject(RoutingContext ctx, String reason, Kind kind, String detail) {
    metrics.rejected(reason);
    Problems.send(ctx, kind, detail);
  }

  private static void answer(RoutingContext ctx, Outcome outcome) {
    if (ctx.response().closed()) {
      return;
    }
    JsonObject body = new JsonObject().put("eventId", outcome.eventId());
    if (outcome instanceof Accepted accepted) {
      body.put("status", "accepted")
          .put("partition", accepted.partition())
          .put("offset", accepted.offset());
      ctx.response().setStatusCode(202);
    } else if (outcome instanceof Duplicate duplicate) {
      body.put("status", "duplicate");
      if (duplicate.conflict()) {
        body.put("conflict", true);
      }
      ctx.response().setStatusCode(200);
    }
    ctx.response().putHeader("Content-Type", "application/json").end(body.encode());
  }

  /** Answers a use case's failure: 422, 503 with Retry-After, or 500. */
  void fail(RoutingContext ctx, Throwable failure) {
    Throwable cause = failure instanceof CompletionException ? failure.getCause() : failure;
    if (cause instanceof InvalidDeviceEventException invalid) {
      Problems.send(ctx, Kind.INVALID_EVENT, "the event breaks a rule", invalid.violations());
    } else if (cause instanceof PublishException publish && publish.reason().retriable()) {
      ctx.response().putHeader("Retry-After", Integer.toString(retryAfterSeconds));
      Kind kind =
          publish.reason() == PublishException.Reason.SATURATED
              ? Kind.SATURATED
              : Kind.KAFKA_UNAVAILABLE;
      Problems.send(ctx, kind, "not written, retry later: " + publish.getMessage());
    } else if (cause instanceof PublishException publish) {
      Problems.send(ctx, Kind.NOT_WRITTEN, publish.getMessage());
    } else {
      LOG.error("accepting a device event failed", cause);
      Problems.send(ctx, Kind.INTERNAL, "unexpected error");
    }
  }
}
