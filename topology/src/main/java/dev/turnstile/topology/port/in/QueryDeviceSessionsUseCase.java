package dev.turnstile.topology.port.in;

/**
 * Read-only: a device's open sessions and the ended sessions still remembered for it, from the
 * {@code device-session} stage's state (the device's session slots in {@code device-state-store}).
 */
public interface QueryDeviceSessionsUseCase {

  /**
   * @param deviceId a valid identifier ({@code dev.turnstile.schemas.Identifier}); the caller
   *     checks it
   * @return {@link QueryAnswer.Found} with the view (empty lists for a device with nothing held:
   *     nothing is not "unknown" for a device), {@link QueryAnswer.OwnedBy} or {@link
   *     QueryAnswer.Unavailable}; never {@link QueryAnswer.NotFound}
   */
  QueryAnswer<DeviceSessionsView> deviceSessions(String deviceId, QueryScope scope);
}
