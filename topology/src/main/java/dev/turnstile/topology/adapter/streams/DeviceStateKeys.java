package dev.turnstile.topology.adapter.streams;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Keys of {@code device-state-store} and {@code device-event-index}. Every key starts with its
 * device, length-prefixed ({@code int} length, UTF-8), so one device's keys are one contiguous
 * range ({@link #deviceRange}) and no two (device, rest) pairs collide. The state store's keys then
 * carry a kind byte:
 *
 * <ul>
 *   <li>{@value #ANONYMOUS}: the device's anonymous session slot (events without a {@code
 *       sessionRef}), nothing after it;
 *   <li>{@value #SESSION}: the slot of one {@code sessionRef}, its UTF-8 after it;
 *   <li>{@value #LONE}: one event remembered on its own, its id's UTF-8 after it.
 * </ul>
 *
 * The index's keys are the device then the event id's UTF-8; an index value is the rest of the
 * state-store key that holds the event (kind byte and what follows), so {@link #holder} rebuilds
 * it.
 */
final class DeviceStateKeys {

  static final byte ANONYMOUS = 0;
  static final byte SESSION = 1;
  static final byte LONE = 2;

  private DeviceStateKeys() {}

  /** A parsed state-store key. */
  record Parsed(String deviceId, byte kind, String rest) {
    /** The session reference of a {@link #SESSION} slot, null for the anonymous slot. */
    String sessionRef() {
      return kind == SESSION ? rest : null;
    }
  }

  /** The slot of {@code sessionRef} on {@code deviceId}, the anonymous slot when it is null. */
  static byte[] slot(String deviceId, String sessionRef) {
    return sessionRef == null ? key(deviceId, ANONYMOUS, null) : key(deviceId, SESSION, sessionRef);
  }

  /** The key of an event remembered on its own. */
  static byte[] lone(String deviceId, String eventId) {
    return key(deviceId, LONE, eventId);
  }

  /** The index key of an event. */
  static byte[] indexKey(String deviceId, String eventId) {
    return holder(deviceId, eventId.getBytes(StandardCharsets.UTF_8));
  }

  /** What an index entry holds: {@code stateKey} without its device prefix. */
  static byte[] holderSuffix(byte[] stateKey) {
    int prefix = 4 + ByteBuffer.wrap(stateKey).getInt();
    return Arrays.copyOfRange(stateKey, prefix, stateKey.length);
  }

  /**
   * {@code suffix} under {@code deviceId}'s prefix (its UTF-8 length, then its bytes): the
   * state-store key an index entry of the device points to, or with an event id the index key.
   */
  static byte[] holder(String deviceId, byte[] suffix) {
    byte[] device = deviceId.getBytes(StandardCharsets.UTF_8);
    return ByteBuffer.allocate(4 + device.length + suffix.length)
        .putInt(device.length)
        .put(device)
        .put(suffix)
        .array();
  }

  /**
   * @throws IllegalStateException when the key is not one of this layout (a corrupted store)
   */
  static Parsed parse(byte[] key) {
    ByteBuffer buffer = ByteBuffer.wrap(key);
    int length = key.length >= 4 ? buffer.getInt() : -1;
    if (length < 0 || 4 + length >= key.length) {
      throw new IllegalStateException("not a device-state-store key: " + Arrays.toString(key));
    }
    String device = new String(key, 4, length, StandardCharsets.UTF_8);
    byte kind = key[4 + length];
    int from = 5 + length;
    String rest =
        kind == ANONYMOUS ? null : new String(key, from, key.length - from, StandardCharsets.UTF_8);
    return new Parsed(device, kind, rest);
  }

  /**
   * The smallest and largest key any of {@code deviceId}'s entries can have: every key starts with
   * the length-prefixed id, and what follows is a kind byte below {@code 0xFF}.
   */
  static byte[][] deviceRange(String deviceId) {
    byte[] device = deviceId.getBytes(StandardCharsets.UTF_8);
    byte[] from = ByteBuffer.allocate(4 + device.length).putInt(device.length).put(device).array();
    byte[] to = Arrays.copyOf(from, from.length + 1);
    to[from.length] = (byte) 0xFF;
    return new byte[][] {from, to};
  }

  private static byte[] key(String deviceId, byte kind, String rest) {
    byte[] device = deviceId.getBytes(StandardCharsets.UTF_8);
    byte[] tail = rest == null ? new byte[0] : rest.getBytes(StandardCharsets.UTF_8);
    return ByteBuffer.allocate(5 + device.length + tail.length)
        .putInt(device.length)
        .put(device)
        .put(kind)
        .put(tail)
        .array();
  }
}
