package dev.turnstile.topology.adapter.streams;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.turnstile.schemas.RejectionReason;
import dev.turnstile.schemas.Sha256;
import dev.turnstile.topology.domain.merge.MergeResult;
import dev.turnstile.topology.domain.merge.PostMergeStep;
import java.util.Arrays;

/**
 * The post-merge stage (docs/design.md, "Post-merge"): what {@code merge} publishes on {@code
 * post-merge.v1} for each merge result it has just published on {@code merge-results.v1}, in the
 * same task and the same transaction.
 *
 * <p><b>Idempotent by merge-result id, with no store of its own.</b> {@code merge} calls {@link
 * #decide} on each result it is about to publish, and publishes a result once per set of
 * contributions (a duplicate patch publishes none; a replay after a failure is the transaction's to
 * undo), so an output is published at most once per {@code mergeResultId}. (A result whose state
 * write is then refused, {@code MERGE_STATE_FULL}, publishes nothing; the step may see its id again
 * if the patch is sent again, and, deterministic, decides the same.) What post-merge remembers is
 * one digest per merge key, kept in the key's merge state ({@link StoredMergeState#published}) and
 * written with it: an output equal to the last one published for the key (say a billing message
 * re-sent under a new id) publishes nothing. The digest lives and expires with the merge state, so
 * a key the merge has forgotten is forgotten here too.
 *
 * <p>Refused, as stage {@code post-merge}: a result the step finds invalid ({@code INVALID_FIELD},
 * with the pointer) or fails on ({@code POST_MERGE_FAILED}): the step is a port, and whatever it
 * does with one result must not stop the topology. The merge result itself stands either way.
 */
final class PostMerge {

  static final String OUTPUT_TYPE = "dev.turnstile.post-merge.v1";

  /** The serde of {@code post-merge.v1} values. */
  static final JsonSerde<JsonNode> OUTPUT_SERDE = new JsonSerde<>(JsonNode.class);

  /** What post-merge makes of one merge result. */
  sealed interface Decision permits Publish, Unchanged, Refused {}

  /**
   * Publish {@code output}.
   *
   * @param output the step's output, which satisfies {@code post-merge.v1}
   * @param digest SHA-256 of the output without its {@code mergeResultId}: what the key's state
   *     remembers as published
   */
  record Publish(JsonNode output, byte[] digest) implements Decision {}

  /**
   * Nothing new to publish: the document is incomplete, or its output is the one last published.
   */
  record Unchanged() implements Decision {}

  /** The step refused the result or failed on it: a rejection of stage {@code post-merge}. */
  record Refused(RejectionReason reason, String detail) implements Decision {}

  private final PostMergeStep step;

  PostMerge(PostMergeStep step) {
    this.step = step;
  }

  /**
   * @param result a merge result {@code merge} is about to publish
   * @param lastPublished the digest of the key's last published output, or {@code null} if none is
   *     remembered
   */
  Decision decide(MergeResult result, byte[] lastPublished) {
    // Whatever fails here (the step, or encoding what it returned) is post-merge's failure: the
    // merge result it was given stands.
    try {
      PostMergeStep.Outcome outcome = step.apply(result);
      if (outcome instanceof PostMergeStep.Invalid invalid) {
        return new Refused(
            RejectionReason.INVALID_FIELD, invalid.pointer() + ": " + invalid.detail());
      }
      if (outcome instanceof PostMergeStep.Publish publish) {
        byte[] digest = digest(publish.output());
        return Arrays.equals(lastPublished, digest)
            ? new Unchanged()
            : new Publish(publish.output(), digest);
      }
      return new Unchanged();
    } catch (RuntimeException e) {
      return new Refused(RejectionReason.POST_MERGE_FAILED, "the post-merge step failed: " + e);
    }
  }

  /** SHA-256 of the output without its {@code mergeResultId}, which changes on every result. */
  private static byte[] digest(JsonNode output) {
    JsonNode content = output;
    if (output.isObject() && output.has("mergeResultId")) {
      ObjectNode copy = ((ObjectNode) output).deepCopy();
      copy.remove("mergeResultId");
      content = copy;
    }
    return Sha256.digest(OUTPUT_SERDE.write(content));
  }
}
