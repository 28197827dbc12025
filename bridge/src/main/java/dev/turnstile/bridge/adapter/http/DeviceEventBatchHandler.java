package dev.turnstile.bridge.adapter.http;

import com.fasterxml.jackson.databind.JsonNode;
import dev.turnstile.bridge.metrics.BridgeMetrics;
import dev.turnstile.bridge.port.in.AcceptDeviceEventUseCase;
import dev.turnstile.bridge.port.in.AcceptDeviceEventUseCase.AcceptDeviceEventCommand;
import dev.turnstile.bridge.port.in.AcceptDeviceEventUseCase.Accepted;
import dev.turnstile.bridge.port.in.AcceptDeviceEventUseCase.Duplicate;
import dev.turnstile.bridge.port.in.AcceptDeviceEventUseCase.Invalid;
import dev.turnstile.bridge.port.in.AcceptDeviceEventUseCase.NotWritten;
import dev.turnstile.bridge.port.in.AcceptDeviceEventUseCase.Outcome;
import dev.turnstile.bridge.port.in.AcceptDeviceEventUseCase.Read;
import dev.turnstile.runtime.http.Problems;
import dev.turnstile.runtime.http.Problems.Kind;
import dev.turnstile.schemas.AuthContext;
import dev.turnstile.schemas.Violation;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code POST /api/v1/devices/{deviceId}/events:batch}: a device's backlog as a JSON array of the
 * events {@code .../events} takes one at a time, checked by the same rules (the request schema
 * here, the rest in the use case), answered once every event to write is acknowledged.
 *
 * <p>A body that is not a non-empty array of at most {@code maxEvents} gets one problem for the
 * whole batch, and so does one whose JSON text breaks a bound of the strict reader anywhere (an
 * event nested deeper than it may be alone, an over-long string, number or name, a duplicate name):
 * 422 {@code json-limit-exceeded} or 400 {@code malformed-json}, its pointer naming the event
 * ({@code /17/attributes/...}), nothing written. The bounds protect the reader itself, so nothing
 * past one is read, and the rest of the text cannot be told apart into events. Otherwise the answer
 * is {@code 200} with one result per event at its index: the rules about an event's content (the
 * request schema, the domain's rules) hold per event, and an invalid event's errors point into the
 * batch ({@code /3/occurredAt}) while the others are written. When Kafka did not acknowledge every
 * write, the answer is {@code 503} with {@code Retry-After}: send the same batch again, what was
 * written is then answered {@code duplicate}.
 */
final class DeviceEventBatchHandler {

  private final AcceptDeviceEventUseCase useCase;
  private final BridgeMetrics metrics;
  private final DeviceEventsHandler single;
  private final RequestSchema schema = new RequestSchema();
  private final int maxEvents;

  /**
   * @param single the single-event handler, whose checks and answers to failures are shared
   * @param maxEvents most events in one batch
   */
  DeviceEventBatchHandler(
      AcceptDeviceEventUseCase useCase,
      BridgeMetrics metrics,
      DeviceEventsHandler single,
      int maxEvents) {
    this.useCase = useCase;
    this.metrics = metrics;
    this.single = single;
    this.maxEvents = maxEvents;
  }

  void handle(RoutingContext ctx) {
    String deviceId = single.deviceId(ctx);
    JsonNode body = deviceId == null ? null : single.body(ctx, true);
    if (body == null || !isBatch(ctx, body)) {
      return;
    }
    JsonObject[] results = new JsonObject[body.size()];
    List<AcceptDeviceEventCommand> commands = new ArrayList<>();
    List<Integer> indexes = new ArrayList<>();
    AuthContext sender = DeviceAccessHandler.sender(ctx);
    for (int i = 0; i < body.size(); i++) {
      JsonNode event = body.get(i);
      List<Violation> violations = schema.violations(event);
      Read read =
          violations.isEmpty() ? AcceptDeviceEventCommand.read(deviceId, event, sender) : null;
      if (read != null && read.command() != null) {
        commands.add(read.command());
        indexes.add(i);
        continue;
      }
      metrics.rejected(read == null ? "schema" : "semantic");
      String eventId = event.path("eventId").isTextual() ? event.get("eventId").asText() : null;
      results[i] = result(new Invalid(eventId, read == null ? violations : read.violations()), i);
    }
    if (commands.isEmpty()) {
      answer(ctx, results);
      return;
    }
    Future.fromCompletionStage(useCase.acceptAll(commands), ctx.vertx().getOrCreateContext())
        .onComplete(
            written -> {
              if (written.failed()) {
                single.fail(ctx, written.cause());
                return;
              }
              List<Outcome> outcomes = written.result();
              for (int k = 0; k < outcomes.size(); k++) {
                results[indexes.get(k)] = result(outcomes.get(k), indexes.get(k));
              }
              answer(ctx, results);
            });
  }

  /** A non-empty JSON array of at most {@code maxEvents}; otherwise answered 422. */
  private boolean isBatch(RoutingContext ctx, JsonNode body) {
    Violation violation = null;
    if (!body.isArray()) {
      violation = new Violation("", "type", "the body must be a JSON array of events");
    } else if (body.isEmpty()) {
      violation = new Violation("", "minItems", "a batch holds at least one event");
    } else if (body.size() > maxEvents) {
      violation =
          new Violation(
              "",
              "maxItems",
              "a batch holds at most " + maxEvents + " events, this one " + body.size());
    }
    if (violation == null) {
      return true;
    }
    metrics.rejected(Kind.INVALID_BATCH.slug);
    Problems.send(ctx, Kind.INVALID_BATCH, violation.message(), List.of(violation));
    return false;
  }

  /** One event's result; an invalid event's pointers are prefixed with its index. */
  private static JsonObject result(Outcome outcome, int index) {
    JsonObject result = new JsonObject();
    if (outcome.eventId() != null) {
      result.put("eventId", outcome.eventId());
    }
    if (outcome instanceof Accepted accepted) {
      result
          .put("status", "accepted")
          .put("partition", accepted.partition())
          .put("offset", accepted.offset());
    } else if (outcome instanceof Duplicate duplicate) {
      result.put("status", "duplicate");
      if (duplicate.conflict()) {
        result.put("conflict", true);
      }
    } else if (outcome instanceof Invalid invalid) {
      JsonArray errors = new JsonArray();
      for (Violation v : invalid.violations()) {
        errors.add(
            new JsonObject()
                .put("pointer", "/" + index + v.pointer())
                .put("keyword", v.keyword())
                .put("message", v.message()));
      }
      result.put("status", "invalid").put("errors", errors);
    } else if (outcome instanceof NotWritten notWritten) {
      result.put("status", "not-written").put("detail", notWritten.reason());
    }
    return result;
  }

  private static void answer(RoutingContext ctx, JsonObject[] results) {
    if (ctx.response().closed()) {
      return;
    }
    JsonObject body = new JsonObject();
    JsonArray items = new JsonArray();
    int accepted = 0;
    int duplicates = 0;
    int invalid = 0;
    int notWritten = 0;
    for (JsonObject result : results) {
      items.add(result);
      switch (result.getString("status")) {
        case "accepted" -> accepted++;
        case "duplicate" -> duplicates++;
        case "invalid" -> invalid++;
        default -> notWritten++;
      }
    }
    body.put("accepted", accepted)
        .put("duplicates", duplicates)
        .put("invalid", invalid)
        .put("notWritten", notWritten)
        .put("results", items);
    ctx.response()
        .setStatusCode(200)
        .putHeader("Content-Type", "application/json")
        .end(body.encode());
  }
}
