package dev.turnstile.bridge.adapter.http;

import dev.turnstile.bridge.application.DeviceRateLimits;
import dev.turnstile.bridge.application.auth.DeviceCredentials;
import java.util.function.Supplier;

/**
 * Who may use the device routes and how fast.
 *
 * @param credentials the device credentials in force (read on every request, so a reloaded file
 *     takes effect at once), or {@code null} when authentication is off
 * @param rateLimits per-device request limits ({@link DeviceRateLimits#NONE} for none)
 */
public record DeviceAccess(Supplier<DeviceCredentials> credentials, DeviceRateLimits rateLimits) {

  /** No authentication, no limit: for tests of other things. */
  public static final DeviceAccess OPEN = new DeviceAccess(null, DeviceRateLimits.NONE);
}
