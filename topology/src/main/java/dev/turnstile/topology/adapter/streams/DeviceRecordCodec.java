package dev.turnstile.topology.adapter.streams;

import com.fasterxml.jackson.databind.JsonNode;
import dev.turnstile.schemas.DeviceEvent;
import dev.turnstile.schemas.DeviceEventType;
import dev.turnstile.schemas.DeviceSessionEventType;
import dev.turnstile.schemas.Json;
import dev.turnstile.schemas.StrictJson;
import dev.turnstile.topology.domain.session.DeviceSession;
import dev.turnstile.topology.domain.session.DeviceSessionsSnapshot;
import dev.turnstile.topology.domain.session.HeldFinish;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;

/**
 * The stored form of a {@link DeviceRecord} in {@code device-state-store}: a compact binary layout,
 * read and rewritten on every event of a slot, so that neither costs a JSON parse of timestamps
 * (java.time's text parsing was the dearest part of it).
 *
 * <p>Layout (big-endian, {@link DataOutputStream}), led by a format byte:
 *
 * <ul>
 *   <li>{@value #LONE}, a {@link DeviceRecord.Lone}: fingerprint, first seen (ms).
 *   <li>{@value #SLOT}, a {@link DeviceRecord.Slot}: the number of remembered events, then each as
 *       event id, fingerprint, first seen (ms); the ended outcome's ordinal + 1 (0: not ended),
 *       then its time (ms) when ended; the number of open sessions, then each as device id, session
 *       id, session reference (nullable), start event id, start time, arrival ms, attributes
 *       (nullable JSON); the number of held {@code Finished} events, then each as device id, event
 *       id, session reference (nullable), end time, attributes, arrival ms.
 * </ul>
 *
 * Strings are length-prefixed UTF-8 (an absent one is length −1); a time is its epoch second, nano
 * and offset seconds, so the device's offset is kept exactly; attributes are their JSON bytes,
 * length-prefixed.
 */
final class DeviceRecordCodec implements TimedStore.Codec<DeviceRecord> {

  static final byte SLOT = 2;
  static final byte LONE = 3;
  static final DeviceRecordCodec INSTANCE = new DeviceRecordCodec();

  private static final DeviceSessionEventType[] OUTCOMES = DeviceSessionEventType.values();

  private DeviceRecordCodec() {}

  @Override
  public byte[] write(DeviceRecord record) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(128);
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      if (record instanceof DeviceRecord.Lone lone) {
        out.writeByte(LONE);
        out.writeLong(lone.fingerprint());
        out.writeLong(lone.firstSeenMillis());
      } else if (record instanceof DeviceRecord.Slot slot) {
        out.writeByte(SLOT);
        writeSlot(out, slot);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("writing to memory cannot fail", e);
    }
    return bytes.toByteArray();
  }

  private static void writeSlot(DataOutputStream out, DeviceRecord.Slot slot) throws IOException {
    out.writeInt(slot.events().size());
    for (DeviceRecord.Remembered r : slot.events()) {
      text(out, r.eventId());
      out.writeLong(r.fingerprint());
      out.writeLong(r.firstSeenMillis());
    }
    if (slot.ended() == null) {
      out.writeByte(0);
    } else {
      out.writeByte(slot.ended().outcome().ordinal() + 1);
      out.writeLong(slot.ended().atMillis());
    }
    DeviceSessionsSnapshot snapshot = slot.sessions();
    out.writeInt(snapshot.open().size());
    for (DeviceSession s : snapshot.open()) {
      text(out, s.deviceId());
      text(out, s.sessionId());
      text(out, s.sessionRef());
      text(out, s.startEventId());
      time(out, s.startedAt());
      out.writeLong(s.openedAtMillis());
      json(out, s.attributes());
    }
    out.writeInt(snapshot.held().size());
    for (HeldFinish h : snapshot.held()) {
      DeviceEvent e = h.event();
      text(out, e.deviceId());
      text(out, e.eventId());
      text(out, e.sessionRef());
      time(out, e.occurredAt());
      json(out, e.attributes());
      out.writeLong(h.arrivedAtMillis());
    }
  }

  /**
   * @throws IllegalStateException when the bytes are not a record of this format: the store is
   *     Turnstile's own, so that is a bug or a corrupted store, not bad input
   */
  @Override
  public DeviceRecord read(byte[] stored) {
    try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(stored))) {
      byte format = in.readByte();
      if (format == LONE) {
        return new DeviceRecord.Lone(in.readLong(), in.readLong());
      }
      if (format != SLOT) {
        throw new IllegalStateException("device-state-store value of unknown format " + format);
      }
      return readSlot(in);
    } catch (IOException e) {
      throw new IllegalStateException("device-state-store value is truncated", e);
    }
  }

  private static DeviceRecord.Slot readSlot(DataInputStream in) throws IOException {
    int eventCount = in.readInt();
    List<DeviceRecord.Remembered> events = new ArrayList<>(eventCount);
    for (int i = 0; i < eventCount; i++) {
      events.add(new DeviceRecord.Remembered(text(in), in.readLong(), in.readLong()));
    }
    int outcome = in.readByte();
    DeviceRecord.Ended ended =
        outcome == 0 ? null : new DeviceRecord.Ended(OUTCOMES[outcome - 1], in.readLong());
    int openCount = in.readInt();
    List<DeviceSession> open = new ArrayList<>(openCount);
    for (int i = 0; i < openCount; i++) {
      open.add(
          new DeviceSession(
              text(in), text(in), text(in), text(in), time(in), in.readLong(), json(in)));
    }
    int heldCount = in.readInt();
    List<HeldFinish> held = new ArrayList<>(heldCount);
    for (int i = 0; i < heldCount; i++) {
      String deviceId = text(in);
      String eventId = text(in);
      String sessionRef = text(in);
      OffsetDateTime occurredAt = time(in);
      JsonNode attributes = json(in);
      DeviceEvent finished =
          new DeviceEvent(
              deviceId,
              eventId,
              DeviceEventType.Finished,
              occurredAt,
              sessionRef,
              attributes,
              null);
      held.add(new HeldFinish(finished, in.readLong()));
    }
    return new DeviceRecord.Slot(events, ended, new DeviceSessionsSnapshot(open, held));
  }

  private static void text(DataOutputStream out, String text) throws IOException {
    if (text == null) {
      out.writeInt(-1);
      return;
    }
    byte[] utf8 = text.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    out.writeInt(utf8.length);
    out.write(utf8);
  }

  private static String text(DataInputStream in) throws IOException {
    int length = in.readInt();
    if (length < 0) {
      return null;
    }
    return new String(in.readNBytes(length), java.nio.charset.StandardCharsets.UTF_8);
  }

  private static void time(DataOutputStream out, OffsetDateTime time) throws IOException {
    out.writeLong(time.toEpochSecond());
    out.writeInt(time.getNano());
    out.writeInt(time.getOffset().getTotalSeconds());
  }

  private static OffsetDateTime time(DataInputStream in) throws IOException {
    long epochSecond = in.readLong();
    int nano = in.readInt();
    ZoneOffset offset = ZoneOffset.ofTotalSeconds(in.readInt());
    return OffsetDateTime.ofInstant(Instant.ofEpochSecond(epochSecond, nano), offset);
  }

  private static void json(DataOutputStream out, JsonNode node) throws IOException {
    if (node == null) {
      out.writeInt(-1);
      return;
    }
    byte[] json = Json.mapper().writeValueAsBytes(node);
    out.writeInt(json.length);
    out.write(json);
  }

  private static JsonNode json(DataInputStream in) throws IOException {
    int length = in.readInt();
    if (length < 0) {
      return null;
    }
    try {
      return StrictJson.ownRecords().readTree(in.readNBytes(length));
    } catch (StrictJson.MalformedJsonException e) {
      throw new IllegalStateException("device-state-store attributes are not JSON", e);
    }
  }
}
