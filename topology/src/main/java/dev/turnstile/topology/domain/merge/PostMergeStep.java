package dev.turnstile.topology.domain.merge;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Optional;

/**
 * Port: what happens to a merge result after the merge, on the way to {@code post-merge.v1}.
 *
 * <p>The topology calls it once per distinct {@link MergeResult#mergeResultId()} (it deduplicates
 * by that ID itself), so an implementation needs no memory of its own, must be deterministic (same
 * result in, same output out, for replays) and must not throw on data it dislikes: it returns empty
 * instead. The default implementation is {@link CompletenessRule}.
 */
public interface PostMergeStep {

  /**
   * @param result a merge result from {@code merge-results.v1}
   * @return the output to publish, or empty to publish nothing for this result
   */
  Optional<JsonNode> apply(MergeResult result);
}
