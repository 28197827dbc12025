package dev.turnstile.topology.adapter.streams;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.turnstile.schemas.DeviceSessionEvent;
import dev.turnstile.schemas.DeviceSessionEventType;
import dev.turnstile.topology.domain.merge.MergeVersion;
import dev.turnstile.topology.domain.merge.Patch;
import java.time.format.DateTimeFormatter;
import java.util.Set;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;

/**
 * Turns a {@code Closed} device session that carries a session reference into a {@link MergeInput}
 * keyed by that reference (the merge key), on its way to {@code merge-inputs.v1}.
 *
 * <p>Patch body: {@code {"station": deviceId, "startedAt", "endedAt" (RFC 3339), "durationMillis",
 * "sessionId": sessionRef, "deviceSessionId": the session's UUID, "session": attributes}}. The
 * reference goes in {@code sessionId} because that is what the billing record calls the same value,
 * so the two sources agree on it. Version: event time {@code endedAt}; source {@value #SOURCE};
 * event id: the session's deterministic id (a session closes once).
 *
 * <p>{@code device-session} forwards only {@code Closed} events with a reference here; anything
 * else is ignored defensively.
 */
final class SessionMergeInputProcessor
    implements Processor<String, DeviceSessionEvent, Void, Void> {

  static final String SOURCE = "/turnstile/device-sessions";

  /**
   * The top-level fields a closed session writes into its merged document: owned by the session, so
   * a Service Bus patch may not set them. {@code sessionId} is not here: the billing record carries
   * the same reference under that name.
   */
  static final Set<String> OWNED_FIELDS =
      Set.of("station", "startedAt", "endedAt", "durationMillis", "deviceSessionId", "session");

  private ProcessorContext<Void, Void> context;

  @Override
  public void init(ProcessorContext<Void, Void> context) {
    this.context = context;
  }

  @Override
  public void process(Record<String, DeviceSessionEvent> record) {
    DeviceSessionEvent event = record.value();
    if (!isMergeable(event)) {
      return;
    }
    MergeVersion version =
        MergeVersion.eventTime(event.endedAt().toInstant(), SOURCE, event.sessionId());
    MergeInput input = new MergeInput(event.sessionRef(), Patch.of(version, body(event)));
    Outputs.SESSION_MERGE_INPUTS.forward(context, input.record(record));
  }

  /** What {@code device-session} sends here: closed, with a reference. */
  static boolean isMergeable(DeviceSessionEvent event) {
    return event != null
        && event.type() == DeviceSessionEventType.Closed
        && event.sessionRef() != null
        && !event.sessionRef().isBlank()
        && event.endedAt() != null;
  }

  private static ObjectNode body(DeviceSessionEvent event) {
    ObjectNode body = JsonNodeFactory.instance.objectNode();
    body.put("station", event.deviceId());
    body.put("startedAt", DateTimeFormatter.ISO_OFFSET_DATE_TIME.format(event.startedAt()));
    body.put("endedAt", DateTimeFormatter.ISO_OFFSET_DATE_TIME.format(event.endedAt()));
    body.put("durationMillis", event.durationMillis());
    body.put("sessionId", event.sessionRef());
    body.put("deviceSessionId", event.sessionId());
    if (event.attributes() != null && event.attributes().isObject()) {
      body.set("session", event.attributes().deepCopy());
    }
    return body;
  }
}
