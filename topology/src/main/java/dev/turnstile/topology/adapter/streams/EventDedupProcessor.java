package dev.turnstile.topology.adapter.streams;

import dev.turnstile.schemas.RejectionReason;
import dev.turnstile.topology.adapter.streams.Rejections.Refusal;
import dev.turnstile.topology.domain.dedup.FirstSeen;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.ProcessorSupplier;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.StoreBuilder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Forwards the first occurrence of each event and drops later copies (docs/design.md, "Dedup"; the
 * rule is {@link FirstSeen}).
 *
 * <p>Identity is {@code (ce_source, ce_id)} from the record headers ({@link DedupKey}). The stage
 * reads the value with its {@link Reader} (the device stage parses the event once here and hands
 * the parsed form on; the Service Bus stage passes the bytes), so a value that cannot be read is
 * rejected here with the reader's reason. What is remembered per identity is its first arrival time
 * and a fingerprint of its content, in {@link RecentKeys} for {@code retention} of ingestion time:
 * a copy with the same content is dropped and counted ({@code duplicates-total}); a copy with other
 * content is dropped, counted apart ({@code duplicate-conflicts-total}, same group {@code
 * stream-turnstile-dedup-metrics}) and written to {@code rejected-events.v1} as {@code
 * DUPLICATE_CONFLICT} with both fingerprints, so the team owning the sender can find it. Both are
 * logged on {@code dev.turnstile.duplicates}: duplicates are information about the field.
 *
 * @param <V> what the reader makes of a value
 */
final class EventDedupProcessor<V> implements Processor<String, byte[], String, Object> {

  private static final Logger DUPLICATES = LoggerFactory.getLogger("dev.turnstile.duplicates");

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

  private final String processorName;
  private final String storeName;
  private final Duration retention;
  private final String next;
  private final Reader<V> reader;
  private ProcessorContext<String, Object> context;
  private RecentKeys seen;
  private Sensor duplicates;
  private Sensor conflicts;

  private EventDedupProcessor(
      String processorName, String storeName, Duration retention, String next, Reader<V> reader) {
    this.processorName = processorName;
    this.storeName = storeName;
    this.retention = retention;
    this.next = next;
    this.reader = reader;
  }

  /**
   * @param processorName the processor's name, also the metrics entity
   * @param storeName the store's name
   * @param retention how long an identity is remembered (ingestion time)
   * @param next the child that receives first occurrences, as the reader made them
   */
  static <V> ProcessorSupplier<String, byte[], String, Object> supplier(
      String processorName, String storeName, Duration retention, String next, Reader<V> reader) {
    StoreBuilder<?> store = RecentKeys.storeBuilder(storeName, retention);
    return new ProcessorSupplier<>() {
      @Override
      public Processor<String, byte[], String, Object> get() {
        return new EventDedupProcessor<>(processorName, storeName, retention, next, reader);
      }

      @Override
      public Set<StoreBuilder<?>> stores() {
        return Set.of(store);
      }
    };
  }

  @Override
  public void init(ProcessorContext<String, Object> context) {
    this.context = context;
    this.seen = new RecentKeys(context.getStateStore(storeName), retention);
    this.duplicates = sensor("duplicates");
    this.conflicts = sensor("duplicate-conflicts");
  }

  private Sensor sensor(String name) {
    return context
        .metrics()
        .addRateTotalSensor("turnstile-dedup", storeName, name, Sensor.RecordingLevel.INFO);
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
    long timestamp = record.timestamp();
    long fingerprint = reader.fingerprint(value, record.value());
    Optional<FirstSeen> remembered =
        seen.find(key, timestamp).map(e -> new FirstSeen(e.atMillis(), fingerprintOf(e)));
    switch (FirstSeen.judge(remembered, fingerprint)) {
      case FIRST -> {
        seen.put(key, ByteBuffer.allocate(Long.BYTES).putLong(fingerprint).array(), timestamp);
        context.forward(record.withValue(value), next);
      }
      case DUPLICATE -> {
        duplicates.record();
        DUPLICATES.info(
            "duplicate dropped: source={} id={} firstSeenAt={} againAt={}",
            identity.get().source(),
            identity.get().id(),
            remembered.get().firstSeenMillis(),
            timestamp);
      }
      case CONFLICT -> {
        conflicts.record();
        String detail =
            "id %s from %s was first seen at %d with content %s; this copy has content %s and is dropped (first wins)"
                .formatted(
                    identity.get().id(),
                    identity.get().source(),
                    remembered.get().firstSeenMillis(),
                    FirstSeen.hex(remembered.get().fingerprint()),
                    FirstSeen.hex(fingerprint));
        DUPLICATES.warn("conflicting duplicate dropped: {}", detail);
        reject(record, RejectionReason.DUPLICATE_CONFLICT, detail);
      }
    }
  }

  private static long fingerprintOf(RecentKeys.Entry entry) {
    return entry.payload().length >= Long.BYTES ? ByteBuffer.wrap(entry.payload()).getLong() : 0L;
  }

  private void reject(Record<String, byte[]> record, RejectionReason reason, String detail) {
    Rejections.forwardInput(
        context, record, record.value(), new Refusal(processorName, reason, detail));
  }
}
