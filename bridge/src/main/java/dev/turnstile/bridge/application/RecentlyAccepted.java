package dev.turnstile.bridge.application;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.cache.CacheMeterBinder;
import java.time.Duration;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.function.LongSupplier;

/**
 * The ids Kafka acknowledged most recently, for answering a device's resend {@code 200 duplicate}
 * without a second write: the last {@code maxSize} ids acknowledged within {@code ttl} are always
 * remembered, and the oldest go first.
 *
 * <p>Why not a general-purpose cache: Caffeine's size bound admits by frequency (W-TinyLFU), so
 * once it is full of ids seen once, a newly acknowledged id, also seen once, loses against them and
 * is dropped right away (ben-manes/caffeine#616, #368: the admission window is 1% and cannot be
 * set). That is right for a read cache and wrong here, where the newest entries are the valuable
 * ones. An insertion-ordered {@link LinkedHashMap} is exactly that policy, and since every entry
 * lives the same {@code ttl}, the eldest is also the first to expire.
 *
 * <p>One lock guards the map: a lookup or an insertion is a hash-map operation, and the callers
 * (event loops, the producer's callback thread) hold it for well under a microsecond.
 *
 * <p>Meters ({@link #bindTo}): Micrometer's standard cache meters with tag {@code
 * cache=duplicate-cache}: {@code cache.gets} ({@code result=hit|miss}: a hit is a resend answered
 * {@code 200 duplicate}), {@code cache.puts}, {@code cache.evictions} (by size; expired entries are
 * not counted), {@code cache.size}, and {@code cache.hit.ratio} (hits over lookups since start).
 */
final class RecentlyAccepted<K> {

  private final int maxSize;
  private final long ttlNanos;
  private final LongSupplier nanoTime;
  private final LinkedHashMap<K, Entry> entries = new LinkedHashMap<>();
  private long hits;
  private long misses;
  private long puts;
  private long evictions;

  /**
   * @param maxSize ids remembered at most, at least 1
   * @param ttl how long an id is remembered after it was acknowledged
   * @param nanoTime a monotonic clock in nanoseconds, {@link System#nanoTime} in production
   */
  RecentlyAccepted(int maxSize, Duration ttl, LongSupplier nanoTime) {
    if (maxSize < 1) {
      throw new IllegalArgumentException("maxSize must be at least 1: " + maxSize);
    }
    this.maxSize = maxSize;
    this.ttlNanos = ttl.toNanos();
    this.nanoTime = nanoTime;
  }

  /** The first acknowledged copy's content fingerprint, or {@code null} if not remembered. */
  synchronized String fingerprint(K key) {
    Entry entry = entries.get(key);
    if (entry != null && expired(entry, nanoTime.getAsLong())) {
      entries.remove(key);
      entry = null;
    }
    if (entry == null) {
      misses++;
      return null;
    }
    hits++;
    return entry.fingerprint;
  }

  /**
   * Remembers an acknowledged id. The first copy stands: a second copy that raced it to Kafka does
   * not replace its fingerprint or extend its time.
   */
  synchronized void remember(K key, String fingerprint) {
    long now = nanoTime.getAsLong();
    if (entries.putIfAbsent(key, new Entry(fingerprint, now)) != null) {
      return;
    }
    puts++;
    Iterator<Entry> eldest = entries.values().iterator();
    while (eldest.hasNext()) {
      Entry entry = eldest.next();
      boolean full = entries.size() > maxSize;
      if (!full && !expired(entry, now)) {
        break;
      }
      eldest.remove();
      evictions += full ? 1 : 0;
    }
  }

  /** Forgets every id (e.g. the topic was deleted and created again: nothing of it is there). */
  synchronized void forgetAll() {
    entries.clear();
  }

  synchronized int size() {
    return entries.size();
  }

  private boolean expired(Entry entry, long now) {
    return now - entry.acceptedAt >= ttlNanos;
  }

  /** Binds the cache meters described above. */
  void bindTo(MeterRegistry registry, String name) {
    new Meters(this, name).bindTo(registry);
  }

  private record Entry(String fingerprint, long acceptedAt) {}

  private static final class Meters extends CacheMeterBinder<RecentlyAccepted<?>> {
    private final RecentlyAccepted<?> cache;

    Meters(RecentlyAccepted<?> cache, String name) {
      super(cache, name, Tags.empty());
      this.cache = cache;
    }

    @Override
    protected Long size() {
      return (long) cache.size();
    }

    @Override
    protected long hitCount() {
      synchronized (cache) {
        return cache.hits;
      }
    }

    @Override
    protected Long missCount() {
      synchronized (cache) {
        return cache.misses;
      }
    }

    @Override
    protected Long evictionCount() {
      synchronized (cache) {
        return cache.evictions;
      }
    }

    @Override
    protected long putCount() {
      synchronized (cache) {
        return cache.puts;
      }
    }

    @Override
    protected void bindImplementationSpecificMetrics(MeterRegistry registry) {
      Gauge.builder("cache.hit.ratio", cache, Meters::hitRatio)
          .tags(getTagsWithCacheName())
          .description("Lookups answered from the cache over all lookups, since start")
          .register(registry);
    }

    private static double hitRatio(RecentlyAccepted<?> cache) {
      synchronized (cache) {
        long lookups = cache.hits + cache.misses;
        return lookups == 0 ? 0 : (double) cache.hits / lookups;
      }
    }
  }
}
