package dev.turnstile.topology.adapter.streams;

import dev.turnstile.schemas.DeviceSessionEventType;
import dev.turnstile.topology.domain.session.EndedSessions;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
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
}
