package dev.turnstile.topology.adapter.streams;

import dev.turnstile.schemas.DeviceSessionEventType;
import dev.turnstile.topology.domain.session.EndedSessions;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Optional;
import org.apache.kafka.common.utils.Bytes;

/**
 * One device's {@link EndedSessions} in {@code device-session-ended-store} ({@link RecentKeys}):
 * key = device id and session reference (length-prefixed), payload = the outcome's name, stamped
 * with arrival time. A reference is forgotten with its segment, so what one event costs does not
 * grow with how many sessions the device has had.
 */
final class WindowStoreEndedSessions implements EndedSessions {

  private final RecentKeys store;
  private final String deviceId;
  private final long timestamp;

  /**
   * @param timestamp the arrival time to stamp new entries with (record or stream time), and to
   *     judge old ones by
   */
  WindowStoreEndedSessions(RecentKeys store, String deviceId, long timestamp) {
    this.store = store;
    this.deviceId = deviceId;
    this.timestamp = timestamp;
  }

  @Override
  public Optional<DeviceSessionEventType> outcome(String sessionRef) {
    return store
        .find(key(sessionRef), timestamp)
        .map(e -> DeviceSessionEventType.valueOf(new String(e.payload(), StandardCharsets.UTF_8)));
  }

  @Override
  public void remember(String sessionRef, DeviceSessionEventType outcome) {
    store.put(key(sessionRef), outcome.name().getBytes(StandardCharsets.UTF_8), timestamp);
  }

  private Bytes key(String sessionRef) {
    byte[] device = deviceId.getBytes(StandardCharsets.UTF_8);
    byte[] ref = sessionRef.getBytes(StandardCharsets.UTF_8);
    return Bytes.wrap(
        ByteBuffer.allocate(4 + device.length + ref.length)
            .putInt(device.length)
            .put(device)
            .put(ref)
            .array());
  }

  /**
   * The smallest and largest key any of {@code deviceId}'s entries can have, for a key-range read
   * of one device: every key of the device starts with its length-prefixed id, and a reference is
   * UTF-8, which never holds the byte {@code 0xFF}.
   */
  static Bytes[] deviceRange(String deviceId) {
    byte[] device = deviceId.getBytes(StandardCharsets.UTF_8);
    byte[] from = ByteBuffer.allocate(4 + device.length).putInt(device.length).put(device).array();
    byte[] to = Arrays.copyOf(from, from.length + 1);
    to[from.length] = (byte) 0xFF;
    return new Bytes[] {Bytes.wrap(from), Bytes.wrap(to)};
  }

  /** The session reference in an entry's key, or empty when the key is not {@code deviceId}'s. */
  static Optional<String> sessionRef(Bytes key, String deviceId) {
    byte[] device = deviceId.getBytes(StandardCharsets.UTF_8);
    byte[] bytes = key.get();
    int prefix = 4 + device.length;
    if (bytes.length <= prefix
        || ByteBuffer.wrap(bytes).getInt() != device.length
        || !Arrays.equals(bytes, 4, prefix, device, 0, device.length)) {
      return Optional.empty();
    }
    return Optional.of(new String(bytes, prefix, bytes.length - prefix, StandardCharsets.UTF_8));
  }
}
