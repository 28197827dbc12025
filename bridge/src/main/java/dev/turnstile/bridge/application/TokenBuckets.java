package dev.turnstile.bridge.application;

import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.LoadingCache;
import io.github.bucket4j.Bandwidth;
import io.github.bucket4j.Bucket;
import io.github.bucket4j.ConsumptionProbe;
import java.time.Duration;

/**
 * One token bucket (Bucket4j) per key, holding {@code burst} tokens and refilled at {@code rate}
 * per {@code period}, for the limits that count something per key: requests per deviceId, failed
 * authentications per client address.
 *
 * <p>Buckets live in a Caffeine cache that drops a key's bucket once it has been idle long enough
 * to be full again ({@code burst / rate} periods, plus a second): a dropped bucket and a full one
 * answer the same, so memory follows the keys active in that window, not every key ever seen. A
 * size bound backs that up against a flood of invented keys. Thread-safe.
 */
public final class TokenBuckets {

  private final LoadingCache<String, Bucket> buckets;

  /**
   * @param rate tokens added per {@code period}, at least 1
   * @param period the refill period
   * @param burst bucket capacity, at least 1
   * @param maxKeys most buckets held at once
   */
  public TokenBuckets(int rate, Duration period, int burst, long maxKeys) {
    if (rate < 1 || burst < 1) {
      throw new IllegalArgumentException("rate and burst must be at least 1");
    }
    Bandwidth bandwidth = Bandwidth.builder().capacity(burst).refillGreedy(rate, period).build();
    Duration refillTime = Duration.ofMillis(Math.max(1, period.toMillis() * burst / rate) + 1_000);
    this.buckets =
        Caffeine.newBuilder()
            // Maintenance (expiry, eviction) on the calling thread: by default Caffeine hands it
            // to the common ForkJoinPool, which woke a pool thread for every few requests on the
            // event loops (a futex signal each; the bridge profile of issue 22).
            .executor(Runnable::run)
            .expireAfterAccess(refillTime)
            .maximumSize(maxKeys)
            .build(key -> Bucket.builder().addLimit(bandwidth).build());
  }

  /**
   * Takes one token of the key's bucket.
   *
   * @return 0 when it was taken, else the nanoseconds until the bucket holds one again
   */
  public long tryTake(String key) {
    ConsumptionProbe probe = buckets.get(key).tryConsumeAndReturnRemaining(1);
    return probe.isConsumed() ? 0 : Math.max(1, probe.getNanosToWaitForRefill());
  }

  /**
   * Whether the key's bucket holds a token now, without taking it.
   *
   * @return 0 when it does, else the nanoseconds until it will
   */
  public long nanosUntilAvailable(String key) {
    Bucket bucket = buckets.getIfPresent(key);
    if (bucket == null) {
      return 0;
    }
    return Math.max(0, bucket.estimateAbilityToConsume(1).getNanosToWaitForRefill());
  }

  /** Takes one token of the key's bucket, if it has one. */
  public void take(String key) {
    buckets.get(key).tryConsume(1);
  }
}
