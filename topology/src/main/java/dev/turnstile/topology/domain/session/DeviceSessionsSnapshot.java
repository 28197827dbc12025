package dev.turnstile.topology.domain.session;

import java.util.List;

/**
 * The stored form of one device's {@link DeviceSessions}: what the state store keeps per device.
 *
 * @param open open sessions in arrival order
 * @param held early {@code Finished} events in arrival order
 */
public record DeviceSessionsSnapshot(List<DeviceSession> open, List<HeldFinish> held) {

  public static final DeviceSessionsSnapshot EMPTY =
      new DeviceSessionsSnapshot(List.of(), List.of());

  public DeviceSessionsSnapshot {
    open = open == null ? List.of() : List.copyOf(open);
    held = held == null ? List.of() : List.copyOf(held);
  }

  /** True when the device has nothing open or held: its state can be deleted. */
  public boolean isEmpty() {
    return open.isEmpty() && held.isEmpty();
  }
}
