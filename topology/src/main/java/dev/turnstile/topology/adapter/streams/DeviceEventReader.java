package dev.turnstile.topology.adapter.streams;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.turnstile.schemas.DeviceEvent;
import dev.turnstile.schemas.DeviceEventType;
import dev.turnstile.schemas.OccurredAt;
import dev.turnstile.schemas.RejectionReason;
import dev.turnstile.schemas.Sha256;
import dev.turnstile.schemas.StrictJson;
import dev.turnstile.schemas.Violation;
import dev.turnstile.topology.domain.dedup.FirstSeen;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.OffsetDateTime;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.kafka.streams.processor.api.Record;

/**
 * Reads a {@code device-events.raw.v1} value for the device path: strictly ({@link StrictJson}), as
 * a {@link DeviceEvent} that keeps the device-event rules ({@link DeviceEvent#violations()}:
 * required fields, the one identifier rule) and whose device matches the record key and whose
 * {@code eventId} is the record's {@code ce_id}, without {@code receivedAt} (the rules use the
 * record timestamp, the same receive time).
 *
 * <p>Its content, for conflict detection, is the value's bytes without the bridge's receive time
 * ({@link #fingerprint}): a device's resend carries the bridge's new receive time and is still the
 * same event, and a copy is judged without being parsed.
 */
final class DeviceEventReader {

  private static final byte[] RECEIVED_AT = "\"receivedAt\"".getBytes(StandardCharsets.US_ASCII);

  /**
   * A device event as read.
   *
   * @param event the event
   * @param raw the bytes it was read from (rejections carry them)
   * @param fingerprint {@link #fingerprint(byte[])} of {@code raw}
   */
  record Read(DeviceEvent event, byte[] raw, long fingerprint) {}

  /**
   * @param eventId the record's {@code ce_id}, which must be the event's {@code eventId}
   * @throws EventDedupProcessor.UnreadableRecordException when the record is not a device event
   */
  Read read(Record<String, byte[]> record, String eventId, long fingerprint)
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
      DeviceEvent plain = tree instanceof ObjectNode object ? plain(object) : null;
      event = plain != null ? plain : StrictJson.senders().treeToValue(tree, DeviceEvent.class);
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
    if (!event.eventId().equals(eventId)) {
      throw malformed(
          "the record's ce_id " + eventId + " is not the event's eventId " + event.eventId());
    }
    return new Read(event, record.value(), fingerprint);
  }

  /**
   * The event of a tree of the plain shape the bridge writes (every field absent or a string, the
   * time in {@link OccurredAt#parseCanonical}'s shape, {@code attributes} absent or an object),
   * mapped field by field; null for a tree of any other shape, which the contract mapping then
   * reads, so both give the same event and the same refusals. Mapping through databind cost more
   * than everything else an event costs to read.
   */
  static DeviceEvent plain(ObjectNode object) {
    JsonNode attributes = object.get("attributes");
    if (attributes != null && !attributes.isObject()) {
      return null;
    }
    String deviceId;
    String eventId;
    String typeName;
    String occurredAtText;
    String sessionRef;
    try {
      deviceId = text(object, "deviceId");
      eventId = text(object, "eventId");
      typeName = text(object, "type");
      occurredAtText = text(object, "occurredAt");
      sessionRef = text(object, "sessionRef");
    } catch (NotPlain e) {
      return null;
    }
    DeviceEventType type = null;
    if (typeName != null) {
      type = DeviceEventType.named(typeName).orElse(null);
      if (type == null) {
        return null;
      }
    }
    OffsetDateTime occurredAt = null;
    if (occurredAtText != null) {
      occurredAt = OccurredAt.parseCanonical(occurredAtText);
      if (occurredAt == null) {
        return null;
      }
    }
    return new DeviceEvent(deviceId, eventId, type, occurredAt, sessionRef, attributes, null);
  }

  /** A member that is not absent, null or a string: the tree is not of the plain shape. */
  private static final class NotPlain extends Exception {
    NotPlain() {
      super(null, null, false, false);
    }
  }

  private static final NotPlain NOT_PLAIN = new NotPlain();

  private static String text(ObjectNode object, String name) throws NotPlain {
    JsonNode node = object.get(name);
    if (node == null || node.isNull()) {
      return null;
    }
    if (!node.isTextual()) {
      throw NOT_PLAIN;
    }
    return node.textValue();
  }

  /**
   * The content fingerprint of a {@code device-event.v1} value ({@link FirstSeen#fingerprint}): of
   * its bytes without the trailing {@code ,"receivedAt":"..."} member that the bridge writes last,
   * the object closed again; a value that does not end so (another writer's) is fingerprinted
   * whole. Null gives the fingerprint of no bytes.
   */
  static long fingerprint(byte[] value) {
    if (value == null) {
      return FirstSeen.fingerprint(new byte[0]);
    }
    int cut = trailingReceivedAt(value);
    if (cut < 0) {
      return FirstSeen.fingerprint(value);
    }
    MessageDigest digest = Sha256.newDigest();
    digest.update(value, 0, cut);
    digest.update((byte) '}');
    return ByteBuffer.wrap(digest.digest()).getLong();
  }

  /**
   * Where the trailing {@code ,"receivedAt":"<text without quote or backslash>"} member of the
   * top-level object starts (its comma), or −1. The member is the last thing before the object's
   * closing brace, which ends the value, so it is a member of the top-level object.
   */
  static int trailingReceivedAt(byte[] v) {
    int i = skipSpaceBack(v, v.length - 1);
    if (i < 0 || v[i] != '}') {
      return -1;
    }
    i = skipSpaceBack(v, i - 1);
    if (i < 0 || v[i] != '"') {
      return -1;
    }
    i--;
    while (i >= 0 && v[i] != '"') {
      if (v[i] == '\\') {
        return -1;
      }
      i--;
    }
    i = skipSpaceBack(v, i - 1);
    if (i < 0 || v[i] != ':') {
      return -1;
    }
    i = skipSpaceBack(v, i - 1);
    int nameStart = i - RECEIVED_AT.length + 1;
    if (nameStart < 0 || !Arrays.equals(v, nameStart, i + 1, RECEIVED_AT, 0, RECEIVED_AT.length)) {
      return -1;
    }
    i = skipSpaceBack(v, nameStart - 1);
    return i >= 0 && v[i] == ',' ? i : -1;
  }

  private static int skipSpaceBack(byte[] v, int i) {
    while (i >= 0 && (v[i] == ' ' || v[i] == '\n' || v[i] == '\r' || v[i] == '\t')) {
      i--;
    }
    return i;
  }

  private static EventDedupProcessor.UnreadableRecordException malformed(String detail) {
    return new EventDedupProcessor.UnreadableRecordException(
        RejectionReason.MALFORMED_EVENT, "not a device-event.v1: " + detail);
  }
}
