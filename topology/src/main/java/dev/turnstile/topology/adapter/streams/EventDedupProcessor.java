package dev.turnstile.topology.adapter.streams;

import dev.turnstile.schemas.RejectionReason;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.ProcessorSupplier;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.state.WindowStore;
import org.apache.kafka.streams.state.WindowStoreIterator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Forwards the first occurrence of each event and drops later copies (DESIGN.md, "Dedup").
 *
 * <p>Identity is {@code (ce_source, ce_id)} from the record headers, so the value is not parsed.
 * Seen identities live in a segmented RocksDB window store keyed by identity and stamped with the
 * record timestamp (the bridge's ingestion time, not the device's clock): a copy is dropped when
 * the same identity was seen within {@code retention} of it. Expiry drops whole segments, so the
 * cost per event does not grow with the number of remembered identities. A copy that arrives more
 * than {@code retention} after the stream time of its partition is no longer recognised.
 *
 * <p>Duplicates are counted (metric {@code duplicates-total}, group {@code
 * stream-turnstile-dedup-metrics}) and logged with their ids on logger {@code
 * dev.turnstile.duplicates}: they are information about the field.
 */
final class EventDedupProcessor implements Processor<String, byte[], String, byte[]> {

  private static final Logger DUPLICATES = LoggerFactory.getLogger("dev.turnstile.duplicates");

  private final String processorName;
  private final String storeName;
  private final long retentionMs;
  private final String next;
  private ProcessorContext<String, byte[]> context;
  private WindowStore<Bytes, Long> seen;
  private Sensor duplicates;

  private EventDedupProcessor(
      String processorName, String storeName, Duration retention, String next) {
    this.processorName = processorName;
    this.storeName = storeName;
    this.retentionMs = retention.toMillis();
    this.next = next;
  }

  /**
   * @param processorName the processor's name, also the metrics entity
   * @param storeName the window store's name
   * @param retention how long an identity is remembered (ingestion time)
   * @param next the child that receives first occurrences
   */
  static ProcessorSupplier<String, byte[], String, byte[]> supplier(
      String processorName, String storeName, Duration retention, String next) {
    StoreBuilder<WindowStore<Bytes, Long>> store =
        Stores.windowStoreBuilder(
            Stores.persistentWindowStore(storeName, retention, Duration.ofMillis(1), false),
            Serdes.Bytes(),
            Serdes.Long());
    return new ProcessorSupplier<>() {
      @Override
      public Processor<String, byte[], String, byte[]> get() {
        return new EventDedupProcessor(processorName, storeName, retention, next);
      }

      @Override
      public Set<StoreBuilder<?>> stores() {
        return Set.of(store);
      }
    };
  }

  @Override
  public void init(ProcessorContext<String, byte[]> context) {
    this.context = context;
    this.seen = context.getStateStore(storeName);
    this.duplicates =
        context
            .metrics()
            .addRateTotalSensor(
                "turnstile-dedup", storeName, "duplicates", Sensor.RecordingLevel.INFO);
  }

  @Override
  public void process(Record<String, byte[]> record) {
    Optional<DedupKey> identity = DedupKey.from(record.headers());
    if (identity.isEmpty()) {
      Rejections.forwardInput(
          context,
          record,
          RejectionReason.MISSING_EVENT_ID,
          "the record has no ce_source or ce_id header, so it cannot be deduplicated",
          processorName,
          null);
      return;
    }
    Bytes key = identity.get().bytes();
    long timestamp = record.timestamp();
    Long firstSeen = firstSeen(key, timestamp);
    if (firstSeen != null) {
      duplicates.record();
      DUPLICATES.info(
          "duplicate dropped: source={} id={} firstSeenAt={} againAt={}",
          identity.get().source(),
          identity.get().id(),
          firstSeen,
          timestamp);
      return;
    }
    seen.put(key, timestamp, timestamp);
    context.forward(record, next);
  }

  private Long firstSeen(Bytes key, long timestamp) {
    long from = timestamp - retentionMs;
    long to = timestamp > Long.MAX_VALUE - retentionMs ? Long.MAX_VALUE : timestamp + retentionMs;
    try (WindowStoreIterator<Long> hits = seen.fetch(key, Math.max(0, from), to)) {
      return hits.hasNext() ? hits.next().value : null;
    }
  }
}
