package dev.turnstile.topology.adapter.streams;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.turnstile.schemas.DeviceEvent;
import dev.turnstile.schemas.Json;
import dev.turnstile.schemas.RejectionReason;
import dev.turnstile.schemas.StrictJson;
import dev.turnstile.schemas.Violation;
import dev.turnstile.topology.domain.dedup.FirstSeen;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.kafka.streams.processor.api.Record;

/**
 * Reads a {@code device-events.raw.v1} value for the device dedup stage: strictly ({@link
 * StrictJson}), as a {@link DeviceEvent} that keeps the device-event rules ({@link
 * DeviceEvent#violations()}: required fields, the one identifier rule) and whose device matches the
 * record key, without {@code receivedAt} (the rules use the record timestamp, the same receive
 * time). Its content, for conflict detection, is therefore the event without {@code receivedAt}: a
 * device's resend carries the bridge's new receive time and is still the same event.
 */
final class DeviceEventReader implements EventDedupProcessor.Reader<DeviceEventReader.Read> {

  /** A device event as read, with the bytes it was read from (rejections carry them). */
  record Read(DeviceEvent event, byte[] raw) {}

  @Override
  public Read read(Record<String, byte[]> record)
      throws EventDedupProcessor.UnreadableRecordException {
    if (record.value() == null) {
      throw malformed("the value is null");
    }
    DeviceEvent event;
    try {
      JsonNode tree = StrictJson.senders().readTree(record.value());
      if (tree instanceof ObjectNode object) {
        // The rules never read the bridge's receive time (the record timestamp carries it), and
        // parsing a timestamp is the dearest part of reading an event.
        object.remove("receivedAt");
      }
      event = StrictJson.senders().treeToValue(tree, DeviceEvent.class);
    } catch (StrictJson.MalformedJsonException e) {
      throw malformed(e.getMessage());
    }
    List<Violation> violations = event.violations();
    if (!violations.isEmpty()) {
      throw malformed(
          violations.stream().map(Violation::message).collect(Collectors.joining("; ")));
    }
    if (!event.deviceId().equals(record.key())) {
      throw malformed(
          "the record key " + record.key() + " is not the event's deviceId " + event.deviceId());
    }
    return new Read(event, record.value());
  }

  @Override
  public long fingerprint(Read read, byte[] raw) {
    DeviceEvent e = read.event();
    DeviceEvent content =
        new DeviceEvent(
            e.deviceId(),
            e.eventId(),
            e.type(),
            e.occurredAt(),
            e.sessionRef(),
            e.attributes(),
            null);
    try {
      return FirstSeen.fingerprint(Json.mapper().writeValueAsBytes(content));
    } catch (IOException ex) {
      throw new UncheckedIOException("a DeviceEvent read from JSON always writes", ex);
    }
  }

  private static EventDedupProcessor.UnreadableRecordException malformed(String detail) {
    return new EventDedupProcessor.UnreadableRecordException(
        RejectionReason.MALFORMED_EVENT, "not a device-event.v1: " + detail);
  }
}
