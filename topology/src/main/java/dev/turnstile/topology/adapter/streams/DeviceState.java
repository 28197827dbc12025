package dev.turnstile.topology.adapter.streams;

import dev.turnstile.topology.adapter.streams.TimedStore.Found;
import dev.turnstile.topology.domain.dedup.FirstSeen;
import java.time.Duration;
import java.util.Optional;
import java.util.function.BiConsumer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.WindowStore;

/**
 * The device path's state: what each session slot holds and which events were seen, in two stores
 * that the dedup and session stages share (docs/design.md, "State and recovery").
 *
 * <ul>
 *   <li>{@code device-state-store} (changelogged) is the truth: {@link DeviceRecord}s under {@link
 *       DeviceStateKeys}. An event of a session slot is remembered in that slot's record, which its
 *       stage rewrites anyway, so a session event costs one changelog record; an event without a
 *       slot of its own (no {@code sessionRef}, or rejected by the rules) is remembered on its own.
 *   <li>{@code device-event-index} (no changelog) maps each remembered event id to the key that
 *       holds it, so a copy is found by its id alone, whatever {@code sessionRef} it carries. It is
 *       derived: {@link #rebuildIndex} writes it again from the state store whenever a task starts
 *       (after a restore, a rebalance, a promoted standby), and a hit is always checked against the
 *       holder, so an entry the state store no longer backs is ignored, never believed.
 * </ul>
 */
final class DeviceState {

  private final TimedStore<DeviceRecord> records;
  private final TimedStore<byte[]> index;
  private final WindowStore<Bytes, byte[]> recordStore;
  private final Duration dedupRetention;

  /**
   * The device state of a task: {@code device-state-store} and {@code device-event-index}, as the
   * processors connected to both (device dedup, device sessions) see them.
   */
  static DeviceState of(
      ProcessorContext<?, ?> context,
      Duration recordRetention,
      Duration dedupRetention,
      int maxRecordBytes) {
    return new DeviceState(
        context.getStateStore(Names.DEVICE_STATE_STORE),
        context.getStateStore(Names.DEVICE_EVENT_INDEX),
        recordRetention,
        dedupRetention,
        maxRecordBytes);
  }

  private DeviceState(
      WindowStore<Bytes, byte[]> recordStore,
      WindowStore<Bytes, byte[]> indexStore,
      Duration recordRetention,
      Duration dedupRetention,
      int maxRecordBytes) {
    this.recordStore = recordStore;
    this.records =
        new TimedStore<>(recordStore, recordRetention, DeviceRecordCodec.INSTANCE, maxRecordBytes);
    this.index = new TimedStore<>(indexStore, dedupRetention, RAW, Integer.MAX_VALUE);
    this.dedupRetention = dedupRetention;
  }

  /** The two stores to declare. */
  static StoreBuilder<?>[] storeBuilders(Duration recordRetention, Duration dedupRetention) {
    return new StoreBuilder<?>[] {
      TimedStore.storeBuilder(Names.DEVICE_STATE_STORE, recordRetention, true),
      TimedStore.storeBuilder(Names.DEVICE_EVENT_INDEX, dedupRetention, false)
    };
  }

  /**
   * When event {@code eventId} of {@code deviceId} was first seen and with what content, if that
   * was within the dedup retention before {@code nowMillis}.
   */
  Optional<FirstSeen> seen(String deviceId, String eventId, long nowMillis) {
    Optional<Found<byte[]>> entry =
        index.find(Bytes.wrap(DeviceStateKeys.indexKey(deviceId, eventId)), nowMillis);
    if (entry.isEmpty()) {
      return Optional.empty();
    }
    byte[] holderKey = DeviceStateKeys.holder(deviceId, entry.get().value());
    return records
        .find(Bytes.wrap(holderKey), nowMillis)
        .flatMap(holder -> firstSeen(holder.value(), eventId))
        .filter(first -> nowMillis - first.firstSeenMillis() <= dedupRetention.toMillis());
  }

  private static Optional<FirstSeen> firstSeen(DeviceRecord holder, String eventId) {
    if (holder instanceof DeviceRecord.Lone lone) {
      return Optional.of(lone.firstSeen());
    }
    return ((DeviceRecord.Slot) holder).event(eventId).map(DeviceRecord.Remembered::firstSeen);
  }

  /** The slot under {@code key} ({@link DeviceStateKeys#slot}), if it holds anything. */
  Optional<Found<DeviceRecord>> find(byte[] key, long nowMillis) {
    return records.find(Bytes.wrap(key), nowMillis);
  }

  /**
   * Writes a slot, or forgets it when it is empty, and indexes the event it just accepted.
   *
   * @param accepted the event accepted into it now, or null
   * @throws TimedStore.TooLargeException when the slot's record would pass the bound: nothing is
   *     written
   */
  void putSlot(
      byte[] key,
      DeviceRecord.Slot slot,
      DeviceRecord.Remembered accepted,
      long stampMillis,
      Optional<Found<DeviceRecord>> previous)
      throws TimedStore.TooLargeException {
    if (slot.isEmpty()) {
      previous.ifPresent(found -> records.delete(Bytes.wrap(key), found));
      return;
    }
    records.put(Bytes.wrap(key), slot, stampMillis, previous);
    if (accepted != null) {
      indexEvent(key, accepted.eventId(), accepted.firstSeenMillis());
    }
  }

  /** Remembers an event on its own. */
  void putLone(String deviceId, String eventId, FirstSeen first) {
    byte[] key = DeviceStateKeys.lone(deviceId, eventId);
    try {
      records.put(
          Bytes.wrap(key),
          new DeviceRecord.Lone(first.fingerprint(), first.firstSeenMillis()),
          first.firstSeenMillis(),
          Optional.empty());
    } catch (TimedStore.TooLargeException e) {
      throw new IllegalStateException("a lone event's record has a fixed size of 17 bytes", e);
    }
    indexEvent(key, eventId, first.firstSeenMillis());
  }

  private void indexEvent(byte[] holderKey, String eventId, long firstSeenMillis) {
    String deviceId = DeviceStateKeys.parse(holderKey).deviceId();
    try {
      index.put(
          Bytes.wrap(DeviceStateKeys.indexKey(deviceId, eventId)),
          DeviceStateKeys.holderSuffix(holderKey),
          firstSeenMillis,
          Optional.empty());
    } catch (TimedStore.TooLargeException e) {
      throw new IllegalStateException("the index has no size bound", e);
    }
  }

  /**
   * Indexes every event the state store remembers and hands each record to {@code visit}: what a
   * task runs when it starts, since the index has no changelog of its own.
   *
   * @return how many records were read
   */
  long rebuildIndex(BiConsumer<byte[], Found<DeviceRecord>> visit) {
    long count = 0;
    try (KeyValueIterator<Windowed<Bytes>, byte[]> all = recordStore.all()) {
      while (all.hasNext()) {
        KeyValue<Windowed<Bytes>, byte[]> next = all.next();
        byte[] key = next.key.key().get();
        Found<DeviceRecord> found = records.found(next.value, next.key.window().start());
        if (found.value() instanceof DeviceRecord.Lone lone) {
          String eventId = DeviceStateKeys.parse(key).rest();
          indexEvent(key, eventId, lone.firstSeenMillis());
        } else {
          for (DeviceRecord.Remembered event : ((DeviceRecord.Slot) found.value()).events()) {
            indexEvent(key, event.eventId(), event.firstSeenMillis());
          }
        }
        visit.accept(key, found);
        count++;
      }
    }
    return count;
  }

  private static final TimedStore.Codec<byte[]> RAW =
      new TimedStore.Codec<>() {
        @Override
        public byte[] write(byte[] value) {
          return value;
        }

        @Override
        public byte[] read(byte[] bytes) {
          return bytes;
        }
      };
}
