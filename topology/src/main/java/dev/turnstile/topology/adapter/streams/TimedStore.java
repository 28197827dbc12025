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
 * A state store of typed values that are forgotten once they have not been written for a retention:
 * every store of the topology but the merge inputs' is one. Typed above, bytes below, as Kafka's
 * own metered stores are; the size bound of a changelog record is checked here, once, for every
 * value written.
 *
 * <p><b>Layout.</b> A segmented RocksDB window store: RocksDB drops a whole segment once it is
 * older than the store's retention, so nothing is deleted record by record and the changelog
 * carries one record per write. A value written at time {@code t} (the writer's <i>stamp</i>) is
 * stored under the window starting at its bucket, {@code t} rounded down to a multiple of the
 * retention {@code R}, with {@code t} itself in its first 8 bytes. A lookup at time {@code now}
 * probes the two buckets that can hold a value written within {@code R} of it, newest first, with a
 * RocksDB point get each (bloom-filtered; a bucket whose segment does not exist costs nothing), so
 * a value is found for at least {@code R} after its last write and the caller checks its own stamps
 * exactly. A value rewritten in a newer bucket than the one it was found in moves there: the older
 * copy is deleted in the same step (rare: only a write that crosses a bucket boundary), so a key
 * has one copy and a scan sees each key once. The store keeps {@code 2R}, so both probed buckets
 * exist.
 *
 * <p>Stamps are stream time (the largest record timestamp the task has seen), never an older record
 * timestamp: a window store silently drops a write older than its retention, and a record
 * backfilled with a timestamp far in the past must be remembered like any other.
 *
 * @param <V> the value's type
 */
final class TimedStore<V> {

  private static final int STAMP_BYTES = Long.BYTES;

  /** Turns values into bytes and back; bytes are what the changelog carries. */
  interface Codec<V> {
    byte[] write(V value);

    /**
     * @throws IllegalStateException when the bytes are not a value of this codec: the store is
     *     Turnstile's own, so that is a bug or a corrupted store, not bad input
     */
    V read(byte[] bytes);
  }

  /**
   * A value as found.
   *
   * @param value the value
   * @param stampMillis when it was last written (stream time, epoch ms)
   * @param bucket the window it is stored under
   */
  record Found<V>(V value, long stampMillis, long bucket) {}

  /** Why {@link #put} refused a value: its encoded size, over the bound. */
  static final class TooLargeException extends Exception {
    final int bytes;

    TooLargeException(int bytes, int max) {
      super("a stored value of " + bytes + " bytes is over the bound of " + max);
      this.bytes = bytes;
    }
  }

  private final WindowStore<Bytes, byte[]> store;
  private final Codec<V> codec;
  private final long bucketMs;
  private final int maxValueBytes;

  /**
   * @param retention {@code R}: a value is found for at least this long after its last write
   * @param maxValueBytes bound on one encoded value (its changelog record)
   */
  TimedStore(
      WindowStore<Bytes, byte[]> store, Duration retention, Codec<V> codec, int maxValueBytes) {
    this.store = store;
    this.codec = codec;
    this.bucketMs = Math.max(1, retention.toMillis());
    this.maxValueBytes = maxValueBytes;
  }

  /**
   * The store to declare: keeps {@code 2 × retention}; with {@code logged} false it has no
   * changelog (a derived index, rebuilt from logged stores).
   */
  static StoreBuilder<WindowStore<Bytes, byte[]>> storeBuilder(
      String name, Duration retention, boolean logged) {
    StoreBuilder<WindowStore<Bytes, byte[]>> builder =
        Stores.windowStoreBuilder(
            Stores.persistentWindowStore(
                name, retention.multipliedBy(2), Duration.ofMillis(1), false),
            Serdes.Bytes(),
            Serdes.ByteArray());
    return logged ? builder : builder.withLoggingDisabled();
  }

  /** The value of {@code key} last written within the retention before {@code nowMillis}. */
  Optional<Found<V>> find(Bytes key, long nowMillis) {
    long newest = bucket(nowMillis);
    for (long bucket = newest; bucket >= newest - bucketMs && bucket >= 0; bucket -= bucketMs) {
      byte[] stored = store.fetch(key, bucket);
      if (stored != null) {
        return Optional.of(found(stored, bucket));
      }
    }
    return Optional.empty();
  }

  /**
   * Writes {@code value} at {@code stampMillis}.
   *
   * @param previous where it was found, if it was: an older bucket's copy is deleted
   * @throws TooLargeException when the encoded value passes the bound; nothing is written
   */
  void put(Bytes key, V value, long stampMillis, Optional<Found<V>> previous)
      throws TooLargeException {
    byte[] payload = codec.write(value);
    if (STAMP_BYTES + payload.length > maxValueBytes) {
      throw new TooLargeException(STAMP_BYTES + payload.length, maxValueBytes);
    }
    long bucket = bucket(stampMillis);
    if (previous.isPresent() && previous.get().bucket() < bucket) {
      store.put(key, null, previous.get().bucket());
    }
    store.put(
        key,
        ByteBuffer.allocate(STAMP_BYTES + payload.length).putLong(stampMillis).put(payload).array(),
        bucket);
  }

  /** Forgets {@code key}'s copy found at {@code found}. */
  void delete(Bytes key, Found<V> found) {
    store.put(key, null, found.bucket());
  }

  /** A stored value as a query or a scan returns it. */
  Found<V> found(byte[] stored, long bucket) {
    return decode(codec, stored, bucket);
  }

  /** A stored value of {@code codec}'s type, as a query or a scan returns it. */
  static <V> Found<V> decode(Codec<V> codec, byte[] stored, long bucket) {
    if (stored.length < STAMP_BYTES) {
      throw new IllegalStateException("a stored value of " + stored.length + " bytes has no stamp");
    }
    long stamp = ByteBuffer.wrap(stored).getLong();
    return new Found<>(
        codec.read(Arrays.copyOfRange(stored, STAMP_BYTES, stored.length)), stamp, bucket);
  }

  private long bucket(long atMillis) {
    return Math.max(0, atMillis) / bucketMs * bucketMs;
  }
}
