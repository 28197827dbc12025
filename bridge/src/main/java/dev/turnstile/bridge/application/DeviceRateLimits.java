package dev.turnstile.bridge.application;

import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.LoadingCache;
import io.github.bucket4j.Bandwidth;
import io.github.bucket4j.Bucket;
import io.github.bucket4j.ConsumptionProbe;
import java.time.Duration;

/**
 * Per-device request rate limits: one token bucket (Bucket4j) per deviceId, holding {@code burst}
 * requests and refilled at {@code requestsPerSecond}, so a device may send a backlog of up to
 * {@code burst} requests at once (say, after being offline) and then its rate.
 *
 * <p>Buckets live in a Caffeine cache that drops a device's bucket once it has been idle long
 * enough to be full again ({@code burst / requestsPerSecond} seconds): a dropped bucket and a full
 * one answer the same, so memory follows the devices active in that window, not every device ever
 * seen. A size bound backs that up against a flood of invented deviceIds.
 */
public final class DeviceRateLimits {

  /** No limit: {@link #tryAcquire} always answers 0. */
  public static final DeviceRateLimits NONE = new DeviceRateLimits();

  private static final long MAX_BUCKETS = 1_000_000;

  private final LoadingCache<String, Bucket> buckets;

  private DeviceRateLimits() {
    this.buckets = null;
  }

  /**
   * @param requestsPerSecond refill rate, at least 1
   * @param burst bucket capacity, at least 1
   */
  public DeviceRateLimits(int requestsPerSecond, int burst) {
    if (requestsPerSecond < 1 || burst < 1) {
      throw new IllegalArgumentException("rate and burst must be at least 1");
    }
    Bandwidth bandwidth =
        Bandwidth.builder()
            .capacity(burst)
            .refillGreedy(requestsPerSecond, Duration.ofSeconds(1))
            .build();
    Duration refillTime =
        Duration.ofMillis(Math.max(1, 1_000L * burst / requestsPerSecond) + 1_000);
    this.buckets =
        Caffeine.newBuilder()
            .expireAfterAccess(refillTime)
            .maximumSize(MAX_BUCKETS)
            .build(deviceId -> Bucket.builder().addLimit(bandwidth).build());
  }

  /**
   * Takes one request from the device's bucket.
   *
   * @return 0 when the request may go ahead, else the nanoseconds until the bucket holds one again
   */
  public long tryAcquire(String deviceId) {
    if (buckets == null) {
      return 0;
    }
    ConsumptionProbe probe = buckets.get(deviceId).tryConsumeAndReturnRemaining(1);
    return probe.isConsumed() ? 0 : Math.max(1, probe.getNanosToWaitForRefill());
  }
}
