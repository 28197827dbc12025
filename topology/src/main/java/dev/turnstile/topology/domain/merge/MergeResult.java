package dev.turnstile.topology.domain.merge;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * The merged document of one merge key after a patch was applied, as published on {@code
 * merge-results.v1}.
 *
 * @param mergeResultId deterministic ID: lower-case hex SHA-256 (64 characters) of the merge key
 *     and the set of all contributions so far, see {@link ContributionDigest#mergeResultId}. The
 *     same contributions after a restart or replay give the same ID, so post-merge deduplicates on
 *     it; any other set gives another ID
 * @param mergeKey the entity the partial records are about, e.g. a charging session ID
 * @param version the highest version applied so far
 * @param document the RFC 7396 merge of every applied patch in version order
 * @param contributingEvents the events behind the retained (not yet compacted) patches, in version
 *     order; at most {@link MergeState#maxPatches()} of them
 * @param contributionCount how many distinct events contributed, compacted ones included
 * @param sources every source that contributed, sorted
 */
public record MergeResult(
    String mergeResultId,
    String mergeKey,
    MergeVersion version,
    JsonNode document,
    List<Contribution> contributingEvents,
    long contributionCount,
    SortedSet<String> sources) {

  public MergeResult {
    Objects.requireNonNull(mergeResultId, "mergeResultId");
    Objects.requireNonNull(mergeKey, "mergeKey");
    Objects.requireNonNull(version, "version");
    Objects.requireNonNull(document, "document");
    contributingEvents = List.copyOf(contributingEvents);
    sources = Collections.unmodifiableSortedSet(new TreeSet<>(sources));
  }
}
