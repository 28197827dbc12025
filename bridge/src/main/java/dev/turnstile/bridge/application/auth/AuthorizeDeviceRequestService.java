package dev.turnstile.bridge.application.auth;

import dev.turnstile.bridge.application.DeviceRateLimits;
import dev.turnstile.bridge.port.in.AuthorizeDeviceRequestUseCase;
import dev.turnstile.schemas.AuthContext;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Who may use the device routes and how fast: the device credentials in force (read from the
 * credentials file, reloaded by {@link #reloadCredentials()}), device JWTs from an identity
 * provider when configured, and the per-device rate limits. A bearer token of JWT shape (three
 * parts) is checked as a JWT when JWTs are accepted; any other as a device token of the file.
 */
public final class AuthorizeDeviceRequestService
    implements AuthorizeDeviceRequestUseCase, AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(AuthorizeDeviceRequestService.class);

  private final DeviceCredentialsFile credentials;
  private final JwtDeviceTokens jwts;
  private final DeviceRateLimits rateLimits;
  private final FailedAuthenticationLimits failures;
  private final AtomicReference<String> lastReloadProblem = new AtomicReference<>();

  /**
   * @param credentials the credentials file, already loaded, or {@code null} when authentication is
   *     off
   * @param rateLimits the per-device limits, {@link DeviceRateLimits#NONE} when off
   */
  public AuthorizeDeviceRequestService(
      DeviceCredentialsFile credentials, DeviceRateLimits rateLimits) {
    this(credentials, null, rateLimits, FailedAuthenticationLimits.NONE);
  }

  /**
   * @param credentials the credentials file, already loaded, or {@code null} when there is none
   * @param jwts the device JWTs accepted, or {@code null} when none; authentication is off when
   *     both are {@code null}
   * @param rateLimits the per-device limits, {@link DeviceRateLimits#NONE} when off
   * @param failures the limit of failed authentications per client address, {@link
   *     FailedAuthenticationLimits#NONE} when off
   */
  public AuthorizeDeviceRequestService(
      DeviceCredentialsFile credentials,
      JwtDeviceTokens jwts,
      DeviceRateLimits rateLimits,
      FailedAuthenticationLimits failures) {
    this.credentials = credentials;
    this.jwts = jwts;
    this.rateLimits = Objects.requireNonNull(rateLimits, "rateLimits");
    this.failures = Objects.requireNonNull(failures, "failures");
  }

  @Override
  public Decision authorize(String deviceId, List<String> authorization, String clientAddress) {
    AuthContext sender = null;
    if (authenticates()) {
      long throttledNanos = failures.nanosUntilAllowed(clientAddress);
      if (throttledNanos > 0) {
        return new Throttled(Duration.ofNanos(throttledNanos));
      }
      Authentication authentication = authenticate(deviceId, authorization);
      if (authentication instanceof Authentication.Refused refused) {
        failures.failed(clientAddress);
        return new Refused(refused.refusal(), refused.detail());
      }
      sender = ((Authentication.Authenticated) authentication).sender();
    }
    long waitNanos = rateLimits.tryAcquire(deviceId);
    return waitNanos > 0 ? new RateLimited(Duration.ofNanos(waitNanos)) : new Allowed(sender);
  }

  private Authentication authenticate(String deviceId, List<String> authorization) {
    BearerToken.Parsed parsed = BearerToken.parse(authorization);
    if (parsed.refused() != null) {
      return parsed.refused();
    }
    String token = parsed.token();
    if (jwts != null && JwtDeviceTokens.isJwt(token)) {
      return jwts.authenticate(deviceId, token);
    }
    if (credentials != null) {
      return credentials.current().authenticateToken(deviceId, token);
    }
    return new Authentication.Refused(
        Refusal.INVALID, "the bearer token is not a JWT (RFC 7519), the only kind accepted here");
  }

  /** Whether requests are authenticated at all. */
  public boolean authenticates() {
    return credentials != null || jwts != null;
  }

  /** Whether there is a credentials file to reload. */
  public boolean readsCredentialsFile() {
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

  /** Stops fetching the JWK set, when there is one. */
  @Override
  public void close() {
    if (jwts != null) {
      jwts.close();
    }
  }
}
