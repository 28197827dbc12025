package dev.turnstile.topology.domain.merge;

/**
 * What {@link MergeState#apply(Patch)} did with a patch: one of {@link Applied}, {@link Duplicate}
 * or {@link Rejected}. Each carries the state to store next.
 */
public sealed interface MergeOutcome {

  /** The state after the patch; unchanged unless {@link Applied}. */
  MergeState state();

  /** The patch took its place in the order; publish {@code result} on {@code merge-results.v1}. */
  record Applied(MergeState state, MergeResult result) implements MergeOutcome {}

  /**
   * The same event (source and event ID) was applied before: no effect, nothing to publish. A
   * re-sent event is assumed identical to the first (upstream dedup keeps the first occurrence).
   */
  record Duplicate(MergeState state, Contribution contribution) implements MergeOutcome {}

  /**
   * The patch cannot be placed; the topology sends it to {@code rejected-events.v1}.
   *
   * @param reason machine-readable
   * @param detail a sentence for humans, naming the versions involved
   */
  record Rejected(MergeState state, Reason reason, String detail) implements MergeOutcome {}

  /** Why a patch was rejected. */
  enum Reason {
    /**
     * The patch is not newer than the compacted base: its exact place in the order was folded away
     * (see {@link MergeState}). It may also be a duplicate of a compacted patch whose ID is no
     * longer remembered; either way the document is left as it is.
     */
    STALE_PATCH
  }
}
