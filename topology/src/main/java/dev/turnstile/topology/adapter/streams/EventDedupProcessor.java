package dev.turnstile.topology.adapter.streams;

import dev.turnstile.schemas.RejectionReason;
import dev.turnstile.topology.adapter.streams.Rejections.Refusal;
import dev.turnstile.topology.domain.dedup.FirstSeen;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.ProcessorSupplier;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.StoreBuilder;

/**
 * Forwards the first occurrence of each event and drops later copies (docs/design.md, "Dedup"; the
 * rule is {@link FirstSeen}): the Service Bus path's dedup stage. The device path has its own
 * ({@link DeviceEventDedupProcessor}), which remembers events in their session state.
 *
 * <p>Identity is {@code (ce_source, ce_id)} from the record headers ({@link DedupKey}). The stage
 * reads the value with its {@link Reader}, so a value that cannot be read is rejected here with the
 * reader's reason. What is remembered per identity, in a {@link TimedStore} for {@code retention}
 * of stream time, is its first arrival and a fingerprint of its content: a copy with the same
 * content is dropped and counted, a copy with other content is dropped, counted apart and written
 * to {@code rejected-events.v1} as {@code DUPLICATE_CONFLICT} with both fingerprints ({@link
 * DuplicateSensors}).
 *
 * @param <V> what the reader makes of a value
 */
final class EventDedupProcessor<V> implements Processor<String, byte[], Void, Void> {

  /** How a dedup stage reads a value and what of it counts as its content. */
  interface Reader<V> {
    /**
     * @throws UnreadableRecordException when the record cannot be processed at all
     */
    V read(Record<String, byte[]> record) throws UnreadableRecordException;

    /** The fingerprint of what the event says (not of how or when it was sent). */
    long fingerprint(V value, byte[] raw);
  }

  /** A record a stage cannot read, with the reason it is rejected under. */
  static final class UnreadableRecordException extends Exception {
    final RejectionReason reason;

    UnreadableRecordException(RejectionReason reason, String detail) {
      super(detail);
      this.reason = reason;
    }
  }

  private static final TimedStore.Codec<FirstSeen> FIRST_SEEN =
      new TimedStore.Codec<>() {
        @Override
        public byte[] write(FirstSeen value) {
          return value.toBytes();
        }

        @Override
        public FirstSeen read(byte[] bytes) {
          return FirstSeen.fromBytes(bytes);
        }
      };

  private final String processorName;
  private final String storeName;
  private final Duration retention;
  private final Output<V> next;
  private final Reader<V> reader;
  private ProcessorContext<Void, Void> context;
  private TimedStore<FirstSeen> seen;
  private DuplicateSensors sensors;

  private EventDedupProcessor(
      String processorName,
      String storeName,
      Duration retention,
      Output<V> next,
      Reader<V> reader) {
    this.processorName = processorName;
    this.storeName = storeName;
    this.retention = retention;
    this.next = next;
    this.reader = reader;
  }

  /**
   * @param processorName the processor's name, also the metrics entity
   * @param storeName the store's name
   * @param retention how long an identity is remembered (stream time)
   * @param next the child that receives first occurrences, as the reader made them
   */
  static <V> ProcessorSupplier<String, byte[], Void, Void> supplier(
      String processorName,
      String storeName,
      Duration retention,
      Output<V> next,
      Reader<V> reader) {
    StoreBuilder<?> store = TimedStore.storeBuilder(storeName, retention, true);
    return new ProcessorSupplier<>() {
      @Override
      public Processor<String, byte[], Void, Void> get() {
        return new EventDedupProcessor<>(processorName, storeName, retention, next, reader);
      }

      @Override
      public Set<StoreBuilder<?>> stores() {
        return Set.of(store);
      }
    };
  }

  @Override
  public void init(ProcessorContext<Void, Void> context) {
    this.context = context;
    this.seen =
        new TimedStore<>(
            context.getStateStore(storeName), retention, FIRST_SEEN, Integer.MAX_VALUE);
    this.sensors = new DuplicateSensors(context, processorName);
  }

  @Override
  public void process(Record<String, byte[]> record) {
    Optional<DedupKey> identity = DedupKey.from(record.headers());
    if (identity.isEmpty()) {
      reject(
          record,
          RejectionReason.MISSING_EVENT_ID,
          "the record has no ce_source or ce_id header, so it cannot be deduplicated");
      return;
    }
    V value;
    try {
      value = reader.read(record);
    } catch (UnreadableRecordException e) {
      reject(record, e.reason, e.getMessage());
      return;
    }
    Bytes key = identity.get().bytes();
    long now = Stamps.now(context, record);
    long fingerprint = reader.fingerprint(value, record.value());
    Optional<FirstSeen> remembered =
        seen.find(key, now)
            .map(TimedStore.Found::value)
            .filter(first -> now - first.firstSeenMillis() <= retention.toMillis());
    String source = identity.get().source();
    String id = identity.get().id();
    switch (FirstSeen.judge(remembered, fingerprint)) {
      case FIRST -> {
        try {
          seen.put(key, new FirstSeen(now, fingerprint), now, Optional.empty());
        } catch (TimedStore.TooLargeException e) {
          throw new IllegalStateException("a first-seen entry has a fixed size", e);
        }
        next.forward(context, record.withValue(value));
      }
      case DUPLICATE -> sensors.duplicate(source, id, remembered.get(), record.timestamp());
      case CONFLICT ->
          reject(
              record,
              RejectionReason.DUPLICATE_CONFLICT,
              sensors.conflict(source, id, remembered.get(), fingerprint));
    }
  }

  private void reject(Record<String, byte[]> record, RejectionReason reason, String detail) {
    Rejections.forwardInput(
        context, record, record.value(), new Refusal(processorName, reason, detail));
  }
}
