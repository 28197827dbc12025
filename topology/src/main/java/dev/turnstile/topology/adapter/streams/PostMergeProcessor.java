package dev.turnstile.topology.adapter.streams;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.turnstile.schemas.RejectionReason;
import dev.turnstile.schemas.Sha256;
import dev.turnstile.schemas.TopicCatalogue;
import dev.turnstile.topology.adapter.streams.Rejections.Refusal;
import dev.turnstile.topology.adapter.streams.TimedStore.Found;
import dev.turnstile.topology.domain.dedup.FirstSeen;
import dev.turnstile.topology.domain.merge.MergeResult;
import dev.turnstile.topology.domain.merge.PostMergeStep;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.ProcessorSupplier;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.StoreBuilder;

/**
 * The post-merge stage (docs/design.md, "Post-merge"): runs the {@link PostMergeStep} on each new
 * merge result of {@code merge-results.v1} and publishes its output on {@code post-merge.v1} (key:
 * merge key, {@code ce_id}: the merge-result id) when the output differs from the last one
 * published for that key.
 *
 * <p><b>Idempotent by merge-result id, with one entry per merge key.</b> {@code post-merge-store}
 * keeps per merge key what was last published: the result's id, its {@code contributionCount} and
 * fingerprint, and a SHA-256 of the output without its {@code mergeResultId}. A merge key's results
 * are written by one merge task in order, each with one more contribution than the one before, so
 * the count orders them: a result with the last published id is a duplicate (a copy with other
 * bytes a {@code DUPLICATE_CONFLICT}), one with no more contributions than the last published is an
 * older result arriving late and is dropped, as a duplicate, rather than undoing a newer output. A
 * result the step does not publish leaves nothing to remember: the step is deterministic, so a copy
 * of it publishes nothing either. An output that equals the last published one (say a redelivered
 * billing message with a new id) publishes nothing.
 *
 * <p>The entry is kept for {@code retention}, which must not outlast the merge stage's memory of
 * the key: once the merge forgets a key, its next patch starts a new document whose counts start
 * again from 1.
 *
 * <p>Rejected: a value that is not a merge-result.v1, or whose id is not its {@code ce_id} or whose
 * merge key is not the record key ({@code MALFORMED_EVENT}); a result the step refuses ({@code
 * INVALID_FIELD}, with the pointer) or fails on ({@code POST_MERGE_FAILED}): the step is a port,
 * and whatever it does with one result must not stop the topology.
 */
final class PostMergeProcessor implements Processor<String, byte[], Void, Void> {

  static final String OUTPUT_TYPE = "dev.turnstile.post-merge.v1";

  /** The serde of {@code post-merge.v1} values. */
  static final JsonSerde<JsonNode> OUTPUT_SERDE = new JsonSerde<>(JsonNode.class);

  /**
   * What was last published for a merge key.
   *
   * @param resultId the published result's {@code mergeResultId}
   * @param contributionCount its {@code contributionCount}
   * @param resultFingerprint {@link FirstSeen#fingerprint} of its bytes
   * @param outputDigest SHA-256 of the output without its {@code mergeResultId}
   */
  record Published(
      String resultId, long contributionCount, long resultFingerprint, byte[] outputDigest) {}

  private static final TimedStore.Codec<Published> CODEC =
      new TimedStore.Codec<>() {
        @Override
        public byte[] write(Published p) {
          byte[] id = p.resultId().getBytes(StandardCharsets.UTF_8);
          return ByteBuffer.allocate(4 + id.length + 16 + 32)
              .putInt(id.length)
              .put(id)
              .putLong(p.contributionCount())
              .putLong(p.resultFingerprint())
              .put(p.outputDigest())
              .array();
        }

        @Override
        public Published read(byte[] bytes) {
          ByteBuffer in = ByteBuffer.wrap(bytes);
          byte[] id = new byte[in.getInt()];
          in.get(id);
          long count = in.getLong();
          long fingerprint = in.getLong();
          byte[] digest = new byte[32];
          in.get(digest);
          return new Published(new String(id, StandardCharsets.UTF_8), count, fingerprint, digest);
        }
      };

  private final PostMergeStep step;
  private final Duration retention;
  private final MergeResultReader reader = new MergeResultReader();
  private ProcessorContext<Void, Void> context;
  private TimedStore<Published> published;
  private DuplicateSensors sensors;

  private PostMergeProcessor(PostMergeStep step, Duration retention) {
    this.step = step;
    this.retention = retention;
  }

  /**
   * @param retention how long a merge key's last publication is remembered (stream time)
   */
  static ProcessorSupplier<String, byte[], Void, Void> supplier(
      PostMergeStep step, Duration retention) {
    StoreBuilder<?> store = TimedStore.storeBuilder(Names.POST_MERGE_STORE, retention, true);
    return new ProcessorSupplier<>() {
      @Override
      public Processor<String, byte[], Void, Void> get() {
        return new PostMergeProcessor(step, retention);
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
    this.published =
        new TimedStore<>(
            context.getStateStore(Names.POST_MERGE_STORE), retention, CODEC, Integer.MAX_VALUE);
    this.sensors = new DuplicateSensors(context, Names.POST_MERGE);
  }

  @Override
  public void process(Record<String, byte[]> record) {
    MergeResult result;
    try {
      result = reader.read(record);
    } catch (EventDedupProcessor.UnreadableRecordException e) {
      reject(record, e.reason, e.getMessage());
      return;
    }
    long now = Stamps.now(context, record);
    Bytes key = Bytes.wrap(result.mergeKey().getBytes(StandardCharsets.UTF_8));
    Optional<Found<Published>> last =
        published.find(key, now).filter(f -> now - f.stampMillis() <= retention.toMillis());
    long fingerprint = FirstSeen.fingerprint(record.value());
    if (last.isPresent() && isNotNewer(record, result, last.get(), fingerprint)) {
      return;
    }
    PostMergeStep.Outcome outcome;
    try {
      outcome = step.apply(result);
    } catch (RuntimeException e) {
      reject(record, RejectionReason.POST_MERGE_FAILED, "the post-merge step failed: " + e);
      return;
    }
    if (outcome instanceof PostMergeStep.Invalid invalid) {
      reject(record, RejectionReason.INVALID_FIELD, invalid.pointer() + ": " + invalid.detail());
      return;
    }
    if (outcome instanceof PostMergeStep.Publish publish) {
      publish(record, result, publish.output(), key, last, fingerprint, now);
    }
  }

  /** A copy or an older result of what was last published: dropped here. */
  private boolean isNotNewer(
      Record<String, byte[]> record, MergeResult result, Found<Published> last, long fingerprint) {
    Published p = last.value();
    FirstSeen first = new FirstSeen(last.stampMillis(), p.resultFingerprint());
    if (p.resultId().equals(result.mergeResultId())) {
      if (p.resultFingerprint() == fingerprint) {
        sensors.duplicate(record.key(), result.mergeResultId(), first, record.timestamp());
      } else {
        reject(
            record,
            RejectionReason.DUPLICATE_CONFLICT,
            sensors.conflict(record.key(), result.mergeResultId(), first, fingerprint));
      }
      return true;
    }
    if (result.contributionCount() <= p.contributionCount()) {
      sensors.duplicate(record.key(), result.mergeResultId(), first, record.timestamp());
      return true;
    }
    return false;
  }

  private void publish(
      Record<String, byte[]> record,
      MergeResult result,
      JsonNode output,
      Bytes key,
      Optional<Found<Published>> last,
      long fingerprint,
      long now) {
    byte[] digest = digest(output);
    if (last.isPresent() && java.util.Arrays.equals(last.get().value().outputDigest(), digest)) {
      return;
    }
    try {
      published.put(
          key,
          new Published(result.mergeResultId(), result.contributionCount(), fingerprint, digest),
          now,
          last);
    } catch (TimedStore.TooLargeException e) {
      throw new IllegalStateException("a publication entry has no size bound", e);
    }
    Outputs.POST_MERGE.forward(
        context,
        new Record<>(
            result.mergeKey(),
            output,
            record.timestamp(),
            OutputHeaders.cloudEvent(
                TopicCatalogue.POST_MERGE,
                result.mergeResultId(),
                OUTPUT_TYPE,
                result.mergeKey(),
                Instant.ofEpochMilli(record.timestamp()))));
  }

  /** SHA-256 of the output without its {@code mergeResultId}, which changes on every result. */
  private byte[] digest(JsonNode output) {
    JsonNode content = output;
    if (output.isObject() && output.has("mergeResultId")) {
      ObjectNode copy = ((ObjectNode) output).deepCopy();
      copy.remove("mergeResultId");
      content = copy;
    }
    return Sha256.digest(OUTPUT_SERDE.write(content));
  }

  private void reject(Record<String, byte[]> record, RejectionReason reason, String detail) {
    Rejections.forwardInput(
        context, record, record.value(), new Refusal(Names.POST_MERGE, reason, detail));
  }
}
