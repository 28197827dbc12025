package dev.turnstile.bridge.application;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.cache.CacheMeterBinder;
import java.time.Duration;
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
 * ones. Since every entry lives the same {@code ttl}, insertion order is also expiry order: the
 * entries form a FIFO ring, and the eldest is the first to go, by size or by time.
 *
 * <p>Why no objects: an entry lives from its ack until {@code maxSize} newer ones or {@code ttl}
 * push it out, seconds to minutes, long enough to be copied by every young collection it lives
 * through and short enough never to settle in the old generation. Kept as a {@code LinkedHashMap}
 * of the request's strings (some 300 bytes an entry), the default 100,000 entries made the bridge's
 * young pauses 19 ms (median; 13 to 43 ms) against 5 ms without the cache (bench bridge, 18,000
 * requests/s), and those pauses were its p99. Here an entry is five longs in one array (its event's
 * {@link Digest128}, its content's, the time it was acknowledged) and a slot of an open-addressing
 * index (linear probing, deletion by backward shift), about 50 bytes in all. The arrays grow by
 * doubling up to {@code maxSize}, so for a moment of each doubling the old and the new are both
 * held, and the entries are inserted again under the lock: at the default 100,000 entries, a few
 * milliseconds, seven times in the cache's life.
 *
 * <p>One lock guards it: a lookup or an insertion probes a few slots, and the callers (event loops,
 * the producer's callback thread) hold it for well under a microsecond.
 *
 * <p>Meters ({@link #bindTo}): Micrometer's standard cache meters with tag {@code
 * cache=duplicate-cache}: {@code cache.gets} ({@code result=hit|miss}: a hit is a resend answered
 * {@code 200 duplicate}), {@code cache.puts}, {@code cache.evictions} (by size; expired entries are
 * not counted), {@code cache.size}, and {@code cache.hit.ratio} (hits over lookups since start).
 */
final class RecentlyAccepted {

  /** The longs of an entry: event digest (2), content digest (2), acknowledged at (1). */
  private static final int STRIDE = 5;

  private static final int FIRST_CAPACITY = 1 << 10;

  /** The most entries: the ring's longs and the index's ints stay within an array's int index. */
  static final int MAX_SIZE = 1 << 28;

  private final int maxSize;
  private final long ttlNanos;
  private final LongSupplier nanoTime;

  /** The ring: entry {@code seq} at {@code (seq % capacity) * STRIDE}. */
  private long[] entries;

  private int capacity;

  /** Open addressing over the ring: a ring slot plus one, 0 for free; size a power of two. */
  private int[] index;

  /** Sequence numbers of the eldest entry and of the next one; {@code tail - head} are held. */
  private long head;

  private long tail;
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
    if (maxSize < 1 || maxSize > MAX_SIZE) {
      throw new IllegalArgumentException("maxSize must be 1 to " + MAX_SIZE + ": " + maxSize);
    }
    this.maxSize = maxSize;
    this.ttlNanos = ttl.toNanos();
    this.nanoTime = nanoTime;
    allocate(Math.min(maxSize, FIRST_CAPACITY));
  }

  /**
   * The first acknowledged copy's content fingerprint, or {@code null} if not remembered.
   *
   * @param event {@link Digest128#ofEvent} of the event's device and id
   */
  synchronized Digest128 fingerprint(Digest128 event) {
    expire(nanoTime.getAsLong());
    int at = find(event.high(), event.low());
    if (at < 0) {
      misses++;
      return null;
    }
    hits++;
    int base = (index[at] - 1) * STRIDE;
    return new Digest128(entries[base + 2], entries[base + 3]);
  }

  /**
   * Remembers an acknowledged id. The first copy stands: a second copy that raced it to Kafka does
   * not replace its fingerprint or extend its time.
   */
  synchronized void remember(Digest128 event, Digest128 fingerprint) {
    long now = nanoTime.getAsLong();
    expire(now);
    if (find(event.high(), event.low()) >= 0) {
      return;
    }
    puts++;
    if (tail - head == capacity) {
      if (capacity < maxSize) {
        grow();
      } else {
        evictEldest();
        evictions++;
      }
    }
    int slot = (int) (tail % capacity);
    int base = slot * STRIDE;
    entries[base] = event.high();
    entries[base + 1] = event.low();
    entries[base + 2] = fingerprint.high();
    entries[base + 3] = fingerprint.low();
    entries[base + 4] = now;
    tail++;
    int at = home(event.high());
    while (index[at] != 0) {
      at = (at + 1) & (index.length - 1);
    }
    index[at] = slot + 1;
  }

  /** Forgets every id (e.g. the topic was deleted and created again: nothing of it is there). */
  synchronized void forgetAll() {
    allocate(Math.min(maxSize, FIRST_CAPACITY));
  }

  synchronized int size() {
    return (int) (tail - head);
  }

  private void expire(long now) {
    while (tail > head && now - entries[(int) (head % capacity) * STRIDE + 4] >= ttlNanos) {
      evictEldest();
    }
  }

  /** The index position holding the entry of these digest bits, or -1. */
  private int find(long high, long low) {
    int mask = index.length - 1;
    for (int at = home(high); index[at] != 0; at = (at + 1) & mask) {
      int base = (index[at] - 1) * STRIDE;
      if (entries[base] == high && entries[base + 1] == low) {
        return at;
      }
    }
    return -1;
  }

  private int home(long high) {
    // SHA-256 bits are uniform: the low ones are the hash.
    return (int) high & (index.length - 1);
  }

  private void evictEldest() {
    int base = (int) (head % capacity) * STRIDE;
    delete(find(entries[base], entries[base + 1]));
    head++;
  }

  /** Frees an index position and shifts back the entries whose probe passed through it. */
  private void delete(int free) {
    int mask = index.length - 1;
    int at = (free + 1) & mask;
    while (index[at] != 0) {
      int home = home(entries[(index[at] - 1) * STRIDE]);
      // The entry at `at` may move to `free` unless its home lies cyclically in (free, at].
      boolean stays = free <= at ? free < home && home <= at : free < home || home <= at;
      if (!stays) {
        index[free] = index[at];
        free = at;
      }
      at = (at + 1) & mask;
    }
    index[free] = 0;
  }

  /** Doubles the ring (up to {@code maxSize}): the entries keep their order, from slot 0. */
  private void grow() {
    long[] old = entries;
    int oldCapacity = capacity;
    long from = head;
    long to = tail;
    allocate((int) Math.min(maxSize, 2L * capacity));
    for (long seq = from; seq < to; seq++) {
      int base = (int) (seq % oldCapacity) * STRIDE;
      int slot = (int) (tail % capacity);
      System.arraycopy(old, base, entries, slot * STRIDE, STRIDE);
      tail++;
      int at = home(old[base]);
      while (index[at] != 0) {
        at = (at + 1) & (index.length - 1);
      }
      index[at] = slot + 1;
    }
  }

  /** Empty arrays for {@code capacity} entries, the index at most half full. */
  private void allocate(int capacity) {
    this.capacity = capacity;
    this.entries = new long[capacity * STRIDE];
    this.index = new int[Integer.highestOneBit(Math.max(1, capacity) * 2 - 1) << 1];
    this.head = 0;
    this.tail = 0;
  }

  /** Binds the cache meters described above. */
  void bindTo(MeterRegistry registry, String name) {
    new Meters(this, name).bindTo(registry);
  }

  private static final class Meters extends CacheMeterBinder<RecentlyAccepted> {
    private final RecentlyAccepted cache;

    Meters(RecentlyAccepted cache, String name) {
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

    private static double hitRatio(RecentlyAccepted cache) {
      synchronized (cache) {
        long lookups = cache.hits + cache.misses;
        return lookups == 0 ? 0 : (double) cache.hits / lookups;
      }
    }
  }
}
