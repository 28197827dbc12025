package dev.turnstile.topology.adapter.streams;

import dev.turnstile.schemas.RejectionReason;
import dev.turnstile.schemas.StrictJson;
import dev.turnstile.schemas.TopicCatalogue;
import dev.turnstile.topology.adapter.streams.Rejections.Refusal;
import dev.turnstile.topology.domain.merge.MergeOutcome;
import dev.turnstile.topology.domain.merge.MergeResult;
import dev.turnstile.topology.domain.merge.MergeState;
import dev.turnstile.topology.domain.merge.PostMergeStep;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.ProcessorSupplier;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.StoreBuilder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs each merge key's {@link MergeState} on {@code merge-inputs.v1} and on the Service Bus
 * patches merged in place ({@link Input}), publishes every applied patch's {@link MergeResult} on
 * {@code merge-results.v1} (key: merge key, {@code ce_id}: the merge-result id), and runs {@link
 * PostMerge} on it, which may publish on {@code post-merge.v1} (same key and {@code ce_id}) or
 * reject as stage {@code post-merge}.
 *
 * <p>State: {@code merge-store} ({@link TimedStore}), merge key to {@link StoredMergeState} (CBOR;
 * JSON read too), with what post-merge last published for the key; one write per applied patch,
 * kept for {@code topology.merge.retention-ms} after the key's last patch: a patch after that
 * starts a new document, so the state does not grow with every key ever merged. Its input is
 * partitioned by merge key, so one key's patches from every source meet in this task.
 *
 * <p>A duplicate patch (same source and event id as a retained one) has no effect and publishes
 * nothing. Rejected, state unchanged: a patch older than the compacted base ({@code STALE_PATCH}),
 * a patch whose merged document would exceed {@code topology.merge.max-document-bytes} ({@code
 * DOCUMENT_TOO_LARGE}), an unreadable input or one whose key is not its merge key ({@code
 * NOT_MERGEABLE}).
 */
final class MergeProcessor implements Processor<String, MergeProcessor.Input, Void, Void> {

  /**
   * What {@code merge} reads: a {@code merge-inputs.v1} record as read ({@link Encoded}), or a
   * patch a feeder in the same task has just made ({@link Local}).
   */
  sealed interface Input permits Encoded, Local {
    /** The value of the record this input was read or made from: what a rejection carries. */
    byte[] original();
  }

  /**
   * A {@code merge-inputs.v1} value as read, parsed (strictly: anyone may write that topic) by
   * {@code merge} itself, so an unreadable one is {@code merge}'s rejection.
   *
   * @param bytes the value; null for a null value
   */
  record Encoded(byte[] bytes) implements Input {
    @Override
    public byte[] original() {
      return bytes;
    }
  }

  /**
   * A patch made in this task from a record of another topic, which {@code merge} applies without a
   * hop through {@code merge-inputs.v1} ({@link ServiceBusMergeInputProcessor}).
   *
   * @param input the patch, keyed as the record it came with
   * @param original the value of the record it was made from, for a rejection to carry
   */
  record Local(MergeInput input, byte[] original) implements Input {}

  /** Reads {@code merge-inputs.v1} values as {@link Encoded}: never fails, parsing comes later. */
  static final Deserializer<Input> INPUT_DESERIALIZER = (topic, bytes) -> new Encoded(bytes);

  private static final Logger LOG = LoggerFactory.getLogger(MergeProcessor.class);
  static final String RESULT_TYPE = "dev.turnstile.merge-result.v1";

  private final int maxPatches;
  private final int maxDocumentBytes;
  private final int maxStateBytes;
  private final JsonSerde<MergeResult> resultSerde = new JsonSerde<>(MergeResult.class);
  private final Duration retention;
  private final PostMerge postMerge;
  private ProcessorContext<Void, Void> context;
  private TimedStore<StoredMergeState> states;

  private MergeProcessor(
      int maxPatches,
      int maxDocumentBytes,
      int maxStateBytes,
      Duration retention,
      PostMergeStep postMergeStep) {
    this.maxPatches = maxPatches;
    this.maxDocumentBytes = maxDocumentBytes;
    this.maxStateBytes = maxStateBytes;
    this.retention = retention;
    this.postMerge = new PostMerge(postMergeStep);
  }

  /**
   * @param maxStateBytes bound on one key's stored state (base and retained patches, as stored): a
   *     patch that would pass it is rejected ({@code MERGE_STATE_FULL}), so the changelog record
   *     stays writable
   * @param postMergeStep the post-merge step run on each published result ({@link PostMerge})
   */
  static ProcessorSupplier<String, Input, Void, Void> supplier(
      int maxPatches,
      int maxDocumentBytes,
      int maxStateBytes,
      Duration retention,
      PostMergeStep postMergeStep) {
    // Values are the state's stored bytes: serialised once per patch, for the bound and the store.
    StoreBuilder<?> store = TimedStore.storeBuilder(Names.MERGE_STORE, retention, true);
    return new ProcessorSupplier<>() {
      @Override
      public Processor<String, Input, Void, Void> get() {
        return new MergeProcessor(
            maxPatches, maxDocumentBytes, maxStateBytes, retention, postMergeStep);
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
    this.states =
        new TimedStore<>(
            context.getStateStore(Names.MERGE_STORE),
            retention,
            StoredMergeState.CODEC,
            maxStateBytes);
  }

  @Override
  public void process(Record<String, Input> record) {
    MergeInput input =
        record.value() instanceof Local local
            ? local.input()
            : parse(record, record.value().original());
    if (input == null) {
      return;
    }
    String mergeKey = record.key();
    long now = Stamps.now(context, record);
    Optional<TimedStore.Found<StoredMergeState>> stored =
        states.find(key(mergeKey), now).filter(f -> now - f.stampMillis() <= retention.toMillis());
    MergeState state =
        stored
            .map(f -> f.value().restore(mergeKey, maxPatches))
            .orElseGet(() -> MergeState.empty(mergeKey, maxPatches));
    MergeOutcome outcome = state.apply(input.patch());
    if (outcome instanceof MergeOutcome.Applied applied) {
      publish(record, applied, now, stored);
    } else if (outcome instanceof MergeOutcome.Duplicate duplicate) {
      LOG.info("duplicate patch ignored: mergeKey={} event={}", mergeKey, duplicate.contribution());
    } else if (outcome instanceof MergeOutcome.Rejected rejected) {
      reject(record, RejectionReason.valueOf(rejected.reason().name()), rejected.detail());
    }
  }

  private MergeInput parse(Record<String, Input> record, byte[] bytes) {
    if (bytes == null) {
      reject(record, RejectionReason.NOT_MERGEABLE, "not a merge-input.v1: the value is null");
      return null;
    }
    MergeInput input;
    try {
      input = StrictJson.ownRecords().readValue(bytes, MergeInput.class);
    } catch (StrictJson.MalformedJsonException e) {
      reject(record, RejectionReason.NOT_MERGEABLE, "not a merge-input.v1: " + e.getMessage());
      return null;
    }
    if (input == null
        || input.patch() == null
        || record.key() == null
        || !record.key().equals(input.mergeKey())) {
      reject(
          record,
          RejectionReason.NOT_MERGEABLE,
          "a merge-input.v1 needs a patch and a record key equal to its mergeKey");
      return null;
    }
    return input;
  }

  private static Bytes key(String mergeKey) {
    return Bytes.wrap(mergeKey.getBytes(StandardCharsets.UTF_8));
  }

  private void publish(
      Record<String, Input> record,
      MergeOutcome.Applied applied,
      long now,
      Optional<TimedStore.Found<StoredMergeState>> previous) {
    MergeResult result = applied.result();
    byte[] value = resultSerde.write(result);
    // The document is part of the result: only a result past the bound needs it measured.
    int documentBytes =
        value.length <= maxDocumentBytes
            ? value.length
            : resultSerde.write(result.document()).length;
    if (documentBytes > maxDocumentBytes) {
      reject(
          record,
          RejectionReason.DOCUMENT_TOO_LARGE,
          "the merged document of %s would have %d bytes, more than the %d allowed"
              .formatted(result.mergeKey(), documentBytes, maxDocumentBytes));
      return;
    }
    byte[] lastPublished = previous.map(f -> f.value().published()).orElse(null);
    PostMerge.Decision postMerged = postMerge.decide(result, lastPublished);
    byte[] nowPublished = postMerged instanceof PostMerge.Publish p ? p.digest() : lastPublished;
    try {
      states.put(
          key(result.mergeKey()),
          StoredMergeState.of(applied.state(), nowPublished),
          now,
          previous);
    } catch (TimedStore.TooLargeException e) {
      // Not saved: the key keeps the state it had, and its changelog record stays writable.
      reject(
          record,
          RejectionReason.MERGE_STATE_FULL,
          ("the stored merge state of %s would have %d bytes (base and %d retained patches), more"
                  + " than the %d allowed")
              .formatted(
                  result.mergeKey(), e.bytes, applied.state().patches().size(), maxStateBytes));
      return;
    }
    Record<String, byte[]> resultRecord =
        new Record<>(
            result.mergeKey(),
            value,
            record.timestamp(),
            OutputHeaders.cloudEvent(
                TopicCatalogue.MERGE_RESULTS,
                result.mergeResultId(),
                RESULT_TYPE,
                result.mergeKey(),
                Instant.ofEpochMilli(record.timestamp())));
    Outputs.MERGE_RESULTS.forward(context, resultRecord);
    if (postMerged instanceof PostMerge.Publish publish) {
      Outputs.POST_MERGE.forward(
          context,
          new Record<>(
              result.mergeKey(),
              publish.output(),
              record.timestamp(),
              OutputHeaders.cloudEvent(
                  TopicCatalogue.POST_MERGE,
                  result.mergeResultId(),
                  PostMerge.OUTPUT_TYPE,
                  result.mergeKey(),
                  Instant.ofEpochMilli(record.timestamp()))));
    } else if (postMerged instanceof PostMerge.Refused refused) {
      // The refused record is the merge result (its value and ce_id); its position, the input's.
      Rejections.forwardInput(
          context,
          resultRecord,
          value,
          new Refusal(Names.POST_MERGE, refused.reason(), refused.detail()));
    }
  }

  private void reject(Record<String, Input> record, RejectionReason reason, String detail) {
    Rejections.forwardInput(
        context, record, record.value().original(), new Refusal(Names.MERGE, reason, detail));
  }
}
