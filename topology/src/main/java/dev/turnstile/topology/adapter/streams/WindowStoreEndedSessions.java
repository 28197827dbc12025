package dev.turnstile.topology.adapter.streams;

import dev.turnstile.schemas.DeviceSessionEventType;
import dev.turnstile.topology.domain.session.EndedSessions;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.state.WindowStore;
import org.apache.kafka.streams.state.WindowStoreIterator;

/**
 * One device's {@link EndedSessions} in the segmented window store {@code
 * device-session-ended-store}: key = device id and session reference (length-prefixed), value = the
 * outcome, stamped with arrival time. A reference is forgotten when its segment expires, so what
 * one event costs does not grow with how many sessions the device has had.
 */
final class WindowStoreEndedSessions implements EndedSessions {

  private final WindowStore<Bytes, String> store;
  private final String deviceId;
  private final long timestamp;
  private final long retentionMs;

  /**
   * @param timestamp the arrival time to stamp new entries with (record or stream time), and to
   *     judge old ones by: an entry older than {@code retention} before it is forgotten even if its
   *     segment has not been dropped yet
   */
  WindowStoreEndedSessions(
      WindowStore<Bytes, String> store, String deviceId, long timestamp, Duration retention) {
    this.store = store;
    this.deviceId = deviceId;
    this.timestamp = timestamp;
    this.retentionMs = retention.toMillis();
  }

  @Override
  public Optional<DeviceSessionEventType> outcome(String sessionRef) {
    try (WindowStoreIterator<String> hits =
        store.fetch(key(sessionRef), Math.max(0, timestamp - retentionMs), Long.MAX_VALUE)) {
      return hits.hasNext()
          ? Optional.of(DeviceSessionEventType.valueOf(hits.next().value))
          : Optional.empty();
    }
  }

  @Override
  public void remember(String sessionRef, DeviceSessionEventType outcome) {
    store.put(key(sessionRef), outcome.name(), timestamp);
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
