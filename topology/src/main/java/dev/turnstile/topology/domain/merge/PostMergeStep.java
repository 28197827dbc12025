package dev.turnstile.topology.domain.merge;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Objects;

/**
 * Port: what happens to a merge result after the merge, on the way to {@code post-merge.v1}.
 *
 * <p>The topology calls it on each merge result as the merge builds it, and publishes at most once
 * per {@link MergeResult#mergeResultId()}, so an implementation needs no memory of its own and must
 * be deterministic (same result in, same outcome out, for replays). It must not throw on data it
 * dislikes: it says {@link Incomplete} or {@link Invalid} instead. Whatever it publishes must
 * satisfy the output topic's schema: checking that is its job, because it alone knows the output's
 * shape. The default implementation is {@link CompletenessRule}.
 */
public interface PostMergeStep {

  /**
   * @param result a merge result, as published on {@code merge-results.v1}
   */
  Outcome apply(MergeResult result);

  /** What the step makes of one merge result. */
  sealed interface Outcome permits Publish, Incomplete, Invalid {}

  /** Publish {@code output}, which satisfies the output topic's schema. */
  record Publish(JsonNode output) implements Outcome {
    public Publish {
      Objects.requireNonNull(output, "output");
    }
  }

  /** Nothing to publish yet: the document lacks what the output needs. */
  record Incomplete() implements Outcome {}

  /**
   * Nothing can be published: a field holds a value the output schema refuses.
   *
   * @param pointer the field in the merged document (RFC 6901)
   * @param detail what is wrong with it
   */
  record Invalid(String pointer, String detail) implements Outcome {}
}
