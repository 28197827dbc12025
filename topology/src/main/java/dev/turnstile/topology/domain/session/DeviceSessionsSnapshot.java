package dev.turnstile.topology.domain.session;

import java.util.List;

/**
 * The stored form of one device's {@link DeviceSessions}: what the state store keeps per device.
 *
 * @param open open sessions in arrival order
 * @param held early {@code Finished} events in arrival order
 * @param ended the most recently ended session references, oldest first
 */
public record DeviceSessionsSnapshot(
    List<DeviceSession> open, List<HeldFinish> held, List<EndedSession> ended) {

  public static final DeviceSessionsSnapshot EMPTY =
      new DeviceSessionsSnapshot(List.of(), List.of(), List.of());

  public DeviceSessionsSnapshot {
    open = open == null ? List.of() : List.copyOf(open);
    held = held == null ? List.of() : List.copyOf(held);
    ended = ended == null ? List.of() : List.copyOf(ended);
  }

  /** True when the device has nothing open, held or remembered: its state can be deleted. */
  public boolean isEmpty() {
    return open.isEmpty() && held.isEmpty() && ended.isEmpty();
  }
}
