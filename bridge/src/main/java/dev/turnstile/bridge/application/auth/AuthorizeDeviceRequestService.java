package dev.turnstile.bridge.application.auth;

import dev.turnstile.bridge.application.DeviceRateLimits;
import dev.turnstile.bridge.port.in.AuthorizeDeviceRequestUseCase;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Who may use the device routes and how fast: the device credentials in force (read from the
 * credentials file, reloaded by {@link #reloadCredentials()}) and the per-device rate limits.
 */
public final class AuthorizeDeviceRequestService implements AuthorizeDeviceRequestUseCase {

  private static final Logger LOG = LoggerFactory.getLogger(AuthorizeDeviceRequestService.class);

  private static final Decision ALLOWED = new Allowed();

  private final DeviceCredentialsFile credentials;
  private final DeviceRateLimits rateLimits;
  private final AtomicReference<String> lastReloadProblem = new AtomicReference<>();

  /**
   * @param credentials the credentials file, already loaded, or {@code null} when authentication is
   *     off
   * @param rateLimits the per-device limits, {@link DeviceRateLimits#NONE} when off
   */
  public AuthorizeDeviceRequestService(
      DeviceCredentialsFile credentials, DeviceRateLimits rateLimits) {
    this.credentials = credentials;
    this.rateLimits = Objects.requireNonNull(rateLimits, "rateLimits");
  }

  @Override
  public Decision authorize(String deviceId, List<String> authorization) {
    if (credentials != null
        && credentials.current().authenticate(deviceId, authorization)
            instanceof Authentication.Refused refused) {
      return new Refused(refused.refusal(), refused.detail());
    }
    long waitNanos = rateLimits.tryAcquire(deviceId);
    return waitNanos > 0 ? new RateLimited(Duration.ofNanos(waitNanos)) : ALLOWED;
  }

  /** Whether requests are authenticated at all, i.e. whether there is a file to reload. */
  public boolean authenticates() {
    return credentials != null;
  }

  /**
   * Reads the credentials file again; a changed file replaces the credentials. A bad one is logged
   * (once per distinct problem, not on every call) and the credentials in force stay. Blocks on
   * file I/O: call it off the event loops.
   *
   * @return whether the credentials were replaced
   */
  public boolean reloadCredentials() {
    if (credentials == null) {
      return false;
    }
    boolean reloaded;
    try {
      reloaded = credentials.reloadIfChanged();
    } catch (RuntimeException e) {
      if (!Objects.equals(lastReloadProblem.getAndSet(e.getMessage()), e.getMessage())) {
        LOG.error("device credentials not reloaded, the previous ones stay: {}", e.getMessage());
      }
      return false;
    }
    lastReloadProblem.set(null);
    if (reloaded) {
      LOG.info(
          "device credentials reloaded: {} credentials from {}",
          credentials.current().size(),
          credentials.path());
    }
    return reloaded;
  }
}
