package dev.turnstile.topology.adapter.streams;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.turnstile.schemas.RejectionReason;
import dev.turnstile.schemas.TopicCatalogue;
import dev.turnstile.topology.domain.merge.MergeResult;
import dev.turnstile.topology.domain.merge.PostMergeStep;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Serdes;
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
 * Reads {@code merge-results.v1}, runs the {@link PostMergeStep} once per merge-result id and
 * publishes its output on {@code post-merge.v1} (key: merge key, {@code ce_id}: the merge-result
 * id) when the output differs from the last one published for that key.
 *
 * <p>Two segmented window stores, both stamped with the record timestamp and kept for {@code
 * retention} (the dedup retention), so neither grows without bound: {@code post-merge-dedup-store}
 * remembers merge-result ids (a replayed or re-read result has no second effect); {@code
 * post-merge-emitted-store} remembers, per merge key, a SHA-256 of the last published output
 * without its {@code mergeResultId}, so a new result that changes nothing the output shows (say, a
 * redelivered billing message with a new id) publishes nothing. Past the retention both are
 * forgotten, like the event dedup.
 */
final class PostMergeProcessor implements Processor<String, byte[], String, byte[]> {

  private static final Logger DUPLICATES = LoggerFactory.getLogger("dev.turnstile.duplicates");
  static final String OUTPUT_TYPE = "dev.turnstile.post-merge.v1";

  private final PostMergeStep step;
  private final long retentionMs;
  private final JsonSerde<MergeResult> resultSerde = new JsonSerde<>(MergeResult.class);
  private ProcessorContext<String, byte[]> context;
  private WindowStore<String, Long> seen;
  private WindowStore<String, byte[]> emitted;

  private PostMergeProcessor(PostMergeStep step, Duration retention) {
    this.step = step;
    this.retentionMs = retention.toMillis();
  }

  static ProcessorSupplier<String, byte[], String, byte[]> supplier(
      PostMergeStep step, Duration retention) {
    StoreBuilder<WindowStore<String, Long>> seenStore =
        Stores.windowStoreBuilder(
            Stores.persistentWindowStore(
                Names.POST_MERGE_DEDUP_STORE, retention, Duration.ofMillis(1), false),
            Serdes.String(),
            Serdes.Long());
    StoreBuilder<WindowStore<String, byte[]>> emittedStore =
        Stores.windowStoreBuilder(
            Stores.persistentWindowStore(
                Names.POST_MERGE_EMITTED_STORE, retention, Duration.ofMillis(1), false),
            Serdes.String(),
            Serdes.ByteArray());
    return new ProcessorSupplier<>() {
      @Override
      public Processor<String, byte[], String, byte[]> get() {
        return new PostMergeProcessor(step, retention);
      }

      @Override
      public Set<StoreBuilder<?>> stores() {
        return Set.of(seenStore, emittedStore);
      }
    };
  }

  @Override
  public void init(ProcessorContext<String, byte[]> context) {
    this.context = context;
    this.seen = context.getStateStore(Names.POST_MERGE_DEDUP_STORE);
    this.emitted = context.getStateStore(Names.POST_MERGE_EMITTED_STORE);
  }

  @Override
  public void process(Record<String, byte[]> record) {
    MergeResult result = parse(record);
    if (result == null) {
      return;
    }
    long timestamp = record.timestamp();
    if (latest(seen, result.mergeResultId(), timestamp) != null) {
      DUPLICATES.info("merge result already handled: id={}", result.mergeResultId());
      return;
    }
    seen.put(result.mergeResultId(), timestamp, timestamp);
    Optional<JsonNode> output;
    try {
      output = step.apply(result);
    } catch (RuntimeException e) {
      // The step is a port: whatever it throws on one result must not stop the topology.
      reject(record, RejectionReason.POST_MERGE_FAILED, "the post-merge step failed: " + e);
      return;
    }
    if (output.isEmpty()) {
      return;
    }
    byte[] fingerprint = fingerprint(output.get());
    // Record timestamps of merge results are not in processing order (several inputs, several
    // bridge pods); stream time is, and it is deterministic on replay. The entry stamped with the
    // highest stream time is the output last emitted.
    long order = Math.max(timestamp, context.currentStreamTimeMs());
    byte[] last = latest(emitted, result.mergeKey(), order);
    if (last != null && Arrays.equals(last, fingerprint)) {
      return;
    }
    emitted.put(result.mergeKey(), fingerprint, order);
    context.forward(
        new Record<>(
            result.mergeKey(),
            resultSerde.write(output.get()),
            timestamp,
            OutputHeaders.cloudEvent(
                TopicCatalogue.POST_MERGE,
                result.mergeResultId(),
                OUTPUT_TYPE,
                result.mergeKey(),
                Instant.ofEpochMilli(timestamp))),
        Names.POST_MERGE_SINK);
  }

  private MergeResult parse(Record<String, byte[]> record) {
    try {
      MergeResult result = resultSerde.deserializer().deserialize(null, record.value());
      if (result != null) {
        return result;
      }
    } catch (SerializationException | IllegalArgumentException | NullPointerException e) {
      reject(record, "not a merge-result.v1: " + e.getMessage());
      return null;
    }
    reject(record, "the value is null");
    return null;
  }

  /** The newest value stored for {@code key} within the retention around {@code timestamp}. */
  private <V> V latest(WindowStore<String, V> store, String key, long timestamp) {
    long from = Math.max(0, timestamp - retentionMs);
    long to = timestamp > Long.MAX_VALUE - retentionMs ? Long.MAX_VALUE : timestamp + retentionMs;
    try (WindowStoreIterator<V> hits = store.backwardFetch(key, from, to)) {
      return hits.hasNext() ? hits.next().value : null;
    }
  }

  /** SHA-256 of the output without its {@code mergeResultId}, which changes on every result. */
  private byte[] fingerprint(JsonNode output) {
    JsonNode content = output;
    if (output.isObject()) {
      ObjectNode copy = ((ObjectNode) output).deepCopy();
      copy.remove("mergeResultId");
      content = copy;
    }
    try {
      return MessageDigest.getInstance("SHA-256").digest(resultSerde.write(content));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java platform provides SHA-256", e);
    }
  }

  private void reject(Record<String, byte[]> record, String detail) {
    reject(record, RejectionReason.MALFORMED_EVENT, detail);
  }

  private void reject(Record<String, byte[]> record, RejectionReason reason, String detail) {
    Rejections.forwardInput(context, record, reason, detail, Names.POST_MERGE, null);
  }
}
