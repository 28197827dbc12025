package dev.turnstile.bridge.adapter.http;

import dev.turnstile.bridge.application.DeviceRateLimits;
import dev.turnstile.bridge.application.auth.DeviceCredentials;
import dev.turnstile.bridge.application.auth.DeviceCredentialsFile;
import dev.turnstile.bridge.config.BridgeConfig;
import dev.turnstile.bridge.config.BridgeConfig.DeviceAuth;
import dev.turnstile.bridge.config.BridgeConfig.RateLimit;
import dev.turnstile.runtime.config.InvalidConfigurationException;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Who may use the device routes and how fast: the device credentials in force (read from the
 * credentials file, reloaded when it changes) and the per-device rate limits.
 */
public final class DeviceAccess {

  private static final Logger LOG = LoggerFactory.getLogger(DeviceAccess.class);

  /** No authentication, no limit: for tests of other things. */
  public static final DeviceAccess OPEN = new DeviceAccess(null, DeviceRateLimits.NONE);

  private final DeviceCredentialsFile credentials;
  private final DeviceRateLimits rateLimits;

  private DeviceAccess(DeviceCredentialsFile credentials, DeviceRateLimits rateLimits) {
    this.credentials = credentials;
    this.rateLimits = rateLimits;
  }

  /**
   * Reads the credentials file when authentication is on; warns when authentication or the rate
   * limits are off.
   *
   * @throws InvalidConfigurationException naming {@link BridgeConfig#AUTH_CREDENTIALS_FILE} when
   *     the file cannot be read or holds an invalid line
   */
  public static DeviceAccess of(DeviceAuth auth, RateLimit rate) {
    if (!rate.enabled()) {
      LOG.warn(
          "device rate limits are OFF ({}=0): one device can take all of the bridge",
          BridgeConfig.RATE_LIMIT_REQUESTS_PER_SECOND);
    }
    DeviceRateLimits limits =
        rate.enabled()
            ? new DeviceRateLimits(rate.requestsPerSecond(), rate.burst())
            : DeviceRateLimits.NONE;
    if (!auth.enabled()) {
      LOG.warn(
          "device authentication is OFF ({}=false): anyone who reaches the HTTP port can write"
              + " events for any device",
          BridgeConfig.AUTH_ENABLED);
      return new DeviceAccess(null, limits);
    }
    DeviceCredentialsFile file;
    try {
      file = DeviceCredentialsFile.load(auth.credentialsFile());
    } catch (IllegalArgumentException e) {
      throw InvalidConfigurationException.of(BridgeConfig.AUTH_CREDENTIALS_FILE, e.getMessage());
    }
    LOG.info(
        "device authentication on: {} credentials from {}",
        file.current().size(),
        auth.credentialsFile());
    return new DeviceAccess(file, limits);
  }

  /**
   * Reads the credentials file again every {@code interval}, off the event loops. A changed file
   * replaces the credentials; a bad one is logged (once per distinct problem, not every interval)
   * and the credentials in force stay.
   */
  public void watch(Vertx vertx, Duration interval) {
    if (credentials == null) {
      return;
    }
    AtomicReference<String> lastProblem = new AtomicReference<>();
    vertx.setPeriodic(
        interval.toMillis(),
        timer ->
            vertx
                .executeBlocking(credentials::reloadIfChanged, false)
                .onSuccess(
                    reloaded -> {
                      lastProblem.set(null);
                      if (reloaded) {
                        LOG.info(
                            "device credentials reloaded: {} credentials from {}",
                            credentials.current().size(),
                            credentials.path());
                      }
                    })
                .onFailure(
                    e -> {
                      if (!Objects.equals(lastProblem.getAndSet(e.getMessage()), e.getMessage())) {
                        LOG.error(
                            "device credentials not reloaded, the previous ones stay: {}",
                            e.getMessage());
                      }
                    }));
  }

  /** The credentials in force now, or {@code null} when authentication is off. */
  DeviceCredentials credentials() {
    return credentials == null ? null : credentials.current();
  }

  /** Whether requests are authenticated at all. */
  boolean authenticates() {
    return credentials != null;
  }

  DeviceRateLimits rateLimits() {
    return rateLimits;
  }
}
