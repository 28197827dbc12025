package dev.turnstile.topology.adapter.streams;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Arrays;
import java.util.Optional;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.state.WindowStore;

/**
 * Keys remembered for a retention, with a small value each: what dedup, ended session references
 * and post-merge keep. A segmented RocksDB window store forgets whole segments once they pass the
 * retention, so nothing is deleted record by record and the changelog carries one record per put.
 *
 * <p><b>Point lookups, not range scans.</b> An entry put at time {@code t} is stored under the
 * window starting at its <i>bucket</i>, {@code t} rounded down to a multiple of {@code retention /
 * 2}; the value holds {@code t} itself (8 bytes, big-endian) before the payload. A lookup at time
 * {@code t} probes the at most five buckets that can hold an entry within {@code [t - retention, t
 * + retention]}, newest first, each with a RocksDB point get (bloom-filtered; a bucket whose
 * segment does not exist costs nothing), and checks the stored time exactly. A window-store {@code
 * fetch} over a time range would open one RocksDB iterator per segment instead, on every event. The
 * store keeps {@code retention * 1.5} so the oldest bucket an entry within the retention can sit in
 * is still there.
 */
final class RecentKeys {

  private static final int TIME_BYTES = Long.BYTES;

  private final WindowStore<Bytes, byte[]> store;
  private final long retentionMs;
  private final long bucketMs;

  /** A remembered entry: when it was put, and its payload. */
  record Entry(long atMillis, byte[] payload) {}

  RecentKeys(WindowStore<Bytes, byte[]> store, Duration retention) {
    this.store = store;
    this.retentionMs = retention.toMillis();
    this.bucketMs = Math.max(1, retentionMs / 2);
  }

  /** The store to declare for {@code retention}; values are opaque bytes. */
  static StoreBuilder<WindowStore<Bytes, byte[]>> storeBuilder(String name, Duration retention) {
    Duration kept = retention.plus(retention.dividedBy(2));
    return Stores.windowStoreBuilder(
        Stores.persistentWindowStore(name, kept, Duration.ofMillis(1), false),
        Serdes.Bytes(),
        Serdes.ByteArray());
  }

  /**
   * The newest entry of {@code key} put within {@code retention} of {@code atMillis}, either side
   * (copies of one event can carry slightly earlier timestamps than the first, from another bridge
   * pod's clock).
   */
  Optional<Entry> find(Bytes key, long atMillis) {
    long newest = bucket(saturatedAdd(atMillis, retentionMs));
    long oldest = bucket(Math.max(0, atMillis - retentionMs));
    for (long bucket = newest; bucket >= oldest; bucket -= bucketMs) {
      byte[] stored = store.fetch(key, bucket);
      if (stored != null && stored.length >= TIME_BYTES) {
        long at = ByteBuffer.wrap(stored).getLong();
        if (Math.abs(at - atMillis) <= retentionMs) {
          return Optional.of(new Entry(at, Arrays.copyOfRange(stored, TIME_BYTES, stored.length)));
        }
      }
    }
    return Optional.empty();
  }

  /**
   * Remembers {@code payload} for {@code key}, put at {@code atMillis}; replaces one in the same
   * bucket.
   */
  void put(Bytes key, byte[] payload, long atMillis) {
    byte[] stored =
        ByteBuffer.allocate(TIME_BYTES + payload.length).putLong(atMillis).put(payload).array();
    store.put(key, stored, bucket(atMillis));
  }

  /**
   * A stored value read back: what {@link #put} wrote, as a query of the store returns it; empty
   * when it is too short to be one.
   */
  static Optional<Entry> entry(byte[] stored) {
    if (stored == null || stored.length < TIME_BYTES) {
      return Optional.empty();
    }
    long at = ByteBuffer.wrap(stored).getLong();
    return Optional.of(new Entry(at, Arrays.copyOfRange(stored, TIME_BYTES, stored.length)));
  }

  private long bucket(long atMillis) {
    return Math.max(0, atMillis) / bucketMs * bucketMs;
  }

  private static long saturatedAdd(long a, long b) {
    long sum = a + b;
    return ((a ^ sum) & (b ^ sum)) < 0 ? Long.MAX_VALUE : sum;
  }
}
