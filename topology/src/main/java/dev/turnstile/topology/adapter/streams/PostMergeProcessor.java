package dev.turnstile.topology.adapter.streams;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.turnstile.schemas.RejectionReason;
import dev.turnstile.schemas.Sha256;
import dev.turnstile.schemas.TopicCatalogue;
import dev.turnstile.topology.adapter.streams.Rejections.Refusal;
import dev.turnstile.topology.domain.merge.MergeResult;
import dev.turnstile.topology.domain.merge.PostMergeStep;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.ProcessorSupplier;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.StoreBuilder;

/**
 * Runs the {@link PostMergeStep} on each merge result that {@code post-merge-dedup} let through
 * (once per merge-result id) and publishes its output on {@code post-merge.v1} (key: merge key,
 * {@code ce_id}: the merge-result id) when the output differs from the last one published for that
 * key.
 *
 * <p>{@code post-merge-emitted-store} ({@link RecentKeys}, kept for the dedup retention) remembers
 * per merge key a SHA-256 of the last published output without its {@code mergeResultId}, so a new
 * result that changes nothing the output shows (say, a redelivered billing message with a new id)
 * publishes nothing. Past the retention it is forgotten, like the event dedup.
 *
 * <p>A step that refuses a result (a field its output schema does not allow) gives an {@code
 * INVALID_FIELD} rejection with the pointer; one that throws gives {@code POST_MERGE_FAILED}: the
 * step is a port, and whatever it does with one result must not stop the topology.
 */
final class PostMergeProcessor implements Processor<String, MergeResult, String, Object> {

  static final String OUTPUT_TYPE = "dev.turnstile.post-merge.v1";

  private final PostMergeStep step;
  private final Duration retention;
  private final JsonSerde<JsonNode> outputSerde = new JsonSerde<>(JsonNode.class);
  private final JsonSerde<MergeResult> resultSerde = new JsonSerde<>(MergeResult.class);
  private ProcessorContext<String, Object> context;
  private RecentKeys emitted;

  private PostMergeProcessor(PostMergeStep step, Duration retention) {
    this.step = step;
    this.retention = retention;
  }

  static ProcessorSupplier<String, MergeResult, String, Object> supplier(
      PostMergeStep step, Duration retention) {
    StoreBuilder<?> emittedStore =
        RecentKeys.storeBuilder(Names.POST_MERGE_EMITTED_STORE, retention);
    return new ProcessorSupplier<>() {
      @Override
      public Processor<String, MergeResult, String, Object> get() {
        return new PostMergeProcessor(step, retention);
      }

      @Override
      public Set<StoreBuilder<?>> stores() {
        return Set.of(emittedStore);
      }
    };
  }

  @Override
  public void init(ProcessorContext<String, Object> context) {
    this.context = context;
    this.emitted = new RecentKeys(context.getStateStore(Names.POST_MERGE_EMITTED_STORE), retention);
  }

  @Override
  public void process(Record<String, MergeResult> record) {
    MergeResult result = record.value();
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
    if (!(outcome instanceof PostMergeStep.Publish publish)) {
      return;
    }
    JsonNode output = publish.output();
    byte[] value = outputSerde.write(output);
    byte[] fingerprint = fingerprint(output);
    // Record timestamps of merge results are not in processing order (several inputs, several
    // bridge pods); stream time is, and it is deterministic on replay. The entry stamped with the
    // highest stream time is the output last emitted.
    long order = Math.max(record.timestamp(), context.currentStreamTimeMs());
    Bytes key = Bytes.wrap(result.mergeKey().getBytes(StandardCharsets.UTF_8));
    Optional<RecentKeys.Entry> last = emitted.find(key, order);
    if (last.isPresent() && Arrays.equals(last.get().payload(), fingerprint)) {
      return;
    }
    emitted.put(key, fingerprint, order);
    context.forward(
        new Record<>(
            result.mergeKey(),
            value,
            record.timestamp(),
            OutputHeaders.cloudEvent(
                TopicCatalogue.POST_MERGE,
                result.mergeResultId(),
                OUTPUT_TYPE,
                result.mergeKey(),
                Instant.ofEpochMilli(record.timestamp()))),
        Names.POST_MERGE_SINK);
  }

  /** SHA-256 of the output without its {@code mergeResultId}, which changes on every result. */
  private byte[] fingerprint(JsonNode output) {
    JsonNode content = output;
    if (output.isObject() && output.has("mergeResultId")) {
      ObjectNode copy = ((ObjectNode) output).deepCopy();
      copy.remove("mergeResultId");
      content = copy;
    }
    return Sha256.digest(outputSerde.write(content));
  }

  private void reject(Record<String, MergeResult> record, RejectionReason reason, String detail) {
    Rejections.forwardInput(
        context,
        record,
        resultSerde.write(record.value()),
        new Refusal(Names.POST_MERGE, reason, detail));
  }
}
