package dev.turnstile.bridge.application.auth;

import dev.turnstile.bridge.application.TokenBuckets;
import java.time.Duration;

/**
 * Failed authentications per client address: a token bucket per address ({@link TokenBuckets})
 * holding {@code burst} failures and refilled at {@code failuresPerMinute}. Each refused request
 * takes one; while an address's bucket is empty, its requests are turned away before their
 * credentials are looked at, so a flood of made-up tokens or forged JWT signatures costs the bridge
 * a bucket look-up per request, not a signature check (tens to hundreds of microseconds of CPU
 * each).
 *
 * <p>The address must be the client's: behind a proxy it is the proxy's unless the proxy is trusted
 * to name the client ({@code bridge.http.trusted-proxies}); otherwise every client behind it shares
 * one bucket, and one client's flood turns all of them away.
 */
public final class FailedAuthenticationLimits {

  /** No limit. */
  public static final FailedAuthenticationLimits NONE = new FailedAuthenticationLimits(null);

  private static final long MAX_ADDRESSES = 1_000_000;

  private final TokenBuckets buckets;

  private FailedAuthenticationLimits(TokenBuckets buckets) {
    this.buckets = buckets;
  }

  /**
   * @param failuresPerMinute refill rate, at least 1
   * @param burst failures an address may have at once, at least 1
   */
  public FailedAuthenticationLimits(int failuresPerMinute, int burst) {
    this(new TokenBuckets(failuresPerMinute, Duration.ofMinutes(1), burst, MAX_ADDRESSES));
  }

  /**
   * Whether the address may try to authenticate now.
   *
   * @return 0 when it may, else the nanoseconds until it may again
   */
  long nanosUntilAllowed(String address) {
    return buckets == null || address == null ? 0 : buckets.nanosUntilAvailable(address);
  }

  /** Counts one failed authentication of the address. */
  void failed(String address) {
    if (buckets != null && address != null) {
      buckets.take(address);
    }
  }
}
