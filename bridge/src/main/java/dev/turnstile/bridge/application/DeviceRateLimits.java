package dev.turnstile.bridge.application;

import java.time.Duration;

/**
 * Per-device request rate limits: one token bucket per deviceId ({@link TokenBuckets}), holding
 * {@code burst} requests and refilled at {@code requestsPerSecond}, so a device may send a backlog
 * of up to {@code burst} requests at once (say, after being offline) and then its rate. A device's
 * bucket is dropped once it is full again, so memory follows the devices active in that window; a
 * size bound backs that up against a flood of invented deviceIds.
 */
public final class DeviceRateLimits {

  /** No limit: {@link #tryAcquire} always answers 0. */
  public static final DeviceRateLimits NONE = new DeviceRateLimits(null);

  private static final long MAX_BUCKETS = 1_000_000;

  private final TokenBuckets buckets;

  private DeviceRateLimits(TokenBuckets buckets) {
    this.buckets = buckets;
  }

  /**
   * @param requestsPerSecond refill rate, at least 1
   * @param burst bucket capacity, at least 1
   */
  public DeviceRateLimits(int requestsPerSecond, int burst) {
    this(new TokenBuckets(requestsPerSecond, Duration.ofSeconds(1), burst, MAX_BUCKETS));
  }

  /**
   * Takes one request from the device's bucket.
   *
   * @return 0 when the request may go ahead, else the nanoseconds until the bucket holds one again
   */
  public long tryAcquire(String deviceId) {
    return buckets == null ? 0 : buckets.tryTake(deviceId);
  }
}
