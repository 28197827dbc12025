package dev.turnstile.topology.domain.merge;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * The merge aggregate of one merge key: the RFC 7396 merge of its patches in {@link MergeVersion}
 * order, whatever order they arrive in. Immutable: {@link #apply(Patch)} returns the next state.
 *
 * <p><b>Order independence.</b> Applied patches are kept sorted by version. A patch newer than all
 * of them is merged onto the current document; an older one is inserted in its place and the
 * document is re-folded from the compacted base, so a late patch never undoes a newer one. A patch
 * whose source and event ID were applied before is a {@link MergeOutcome.Duplicate} and has no
 * effect. Hence, for any arrival order and duplication of a set of at most {@link #maxPatches()}
 * patches, the document, the version and the merge-result ID equal those of applying the set in
 * version order.
 *
 * <p><b>Bound.</b> At most {@link #maxPatches()} patches are retained (default {@value
 * #DEFAULT_MAX_PATCHES}). When one more is applied, the oldest is folded into the base document and
 * its version becomes the base version. A patch that is not newer than the base version can no
 * longer be placed exactly and is {@link MergeOutcome.Rejected} with {@link
 * MergeOutcome.Reason#STALE_PATCH}, leaving the state unchanged (the exception: a patch whose
 * version equals the base version is that very event, a duplicate). Guarantee: a patch is placed
 * exactly as long as at most {@code maxPatches} newer patches arrived before it, because a patch is
 * compacted only once {@code maxPatches} newer ones are retained. Past that, the result equals
 * applying, in version order, exactly the patches that were not rejected.
 *
 * <p>Contributions (source and event ID) are remembered for the retained patches only; the count
 * and a {@link ContributionDigest} cover all of them, so the {@link MergeResult#mergeResultId()}
 * still reflects every contribution. Sources are all kept (a merge key has a handful).
 */
public final class MergeState {

  /** Default for {@link #maxPatches()}. */
  public static final int DEFAULT_MAX_PATCHES = 12;

  private final String mergeKey;
  private final int maxPatches;
  private final JsonNode base;
  private final MergeVersion baseVersion;
  private final List<Patch> patches;
  private final JsonNode document;
  private final ContributionDigest digest;
  private final SortedSet<String> sources;

  private MergeState(
      String mergeKey,
      int maxPatches,
      JsonNode base,
      MergeVersion baseVersion,
      List<Patch> patches,
      JsonNode document,
      ContributionDigest digest,
      SortedSet<String> sources) {
    this.mergeKey = mergeKey;
    this.maxPatches = maxPatches;
    this.base = base;
    this.baseVersion = baseVersion;
    this.patches = patches;
    this.document = document;
    this.digest = digest;
    this.sources = sources;
  }

  /**
   * The state of a merge key that no patch has reached yet.
   *
   * @param maxPatches how many patches to retain before compacting, at least 1
   */
  public static MergeState empty(String mergeKey, int maxPatches) {
    return restore(
        mergeKey,
        maxPatches,
        MissingNode.getInstance(),
        null,
        List.of(),
        ContributionDigest.EMPTY,
        List.of());
  }

  /**
   * Rebuilds a state from its parts (as read from a state store). When {@code maxPatches} is now
   * lower than the number of patches, the oldest are compacted at once.
   *
   * @param base the compacted document, a missing node when nothing was compacted
   * @param baseVersion the version of the last compacted patch, null when none was
   * @param patches the retained patches, any order; all must be newer than {@code baseVersion}
   * @throws IllegalArgumentException on a patch not newer than the base, or {@code maxPatches < 1}
   */
  public static MergeState restore(
      String mergeKey,
      int maxPatches,
      JsonNode base,
      MergeVersion baseVersion,
      Collection<Patch> patches,
      ContributionDigest digest,
      Collection<String> sources) {
    MergeVersion.requireText(mergeKey, "mergeKey");
    if (maxPatches < 1) {
      throw new IllegalArgumentException("maxPatches must be at least 1, got " + maxPatches);
    }
    List<Patch> sorted = new ArrayList<>(patches);
    sorted.sort((a, b) -> a.version().compareTo(b.version()));
    if (baseVersion != null
        && !sorted.isEmpty()
        && sorted.get(0).version().compareTo(baseVersion) <= 0) {
      throw new IllegalArgumentException("retained patches must be newer than the base version");
    }
    JsonNode document = base;
    for (Patch patch : sorted) {
      document = JsonMergePatch.apply(document, patch.body());
    }
    return new MergeState(
            mergeKey,
            maxPatches,
            Objects.requireNonNull(base, "base"),
            baseVersion,
            List.copyOf(sorted),
            document,
            Objects.requireNonNull(digest, "digest"),
            Collections.unmodifiableSortedSet(new TreeSet<>(sources)))
        .compacted();
  }

  /**
   * Applies a patch: places it in version order, or recognises a duplicate, or rejects it as stale
   * (see the class comment).
   */
  public MergeOutcome apply(Patch patch) {
    Objects.requireNonNull(patch, "patch");
    MergeVersion version = patch.version();
    if (isRetained(patch.contribution())
        || (baseVersion != null && version.compareTo(baseVersion) == 0)) {
      return new MergeOutcome.Duplicate(this, patch.contribution());
    }
    if (baseVersion != null && version.compareTo(baseVersion) < 0) {
      return new MergeOutcome.Rejected(
          this,
          MergeOutcome.Reason.STALE_PATCH,
          "patch %s/%s at %s is older than the compacted base %s of merge key %s (%d patches retained)"
              .formatted(
                  patch.source(), patch.eventId(), version, baseVersion, mergeKey, maxPatches));
    }
    int at = insertionPoint(version);
    List<Patch> next = new ArrayList<>(patches);
    next.add(at, patch);
    JsonNode nextDocument =
        at == patches.size() ? JsonMergePatch.apply(document, patch.body()) : fold(base, next);
    SortedSet<String> nextSources = new TreeSet<>(sources);
    nextSources.add(patch.source());
    MergeState state =
        new MergeState(
                mergeKey,
                maxPatches,
                base,
                baseVersion,
                Collections.unmodifiableList(next),
                nextDocument,
                digest.with(patch.contribution()),
                Collections.unmodifiableSortedSet(nextSources))
            .compacted();
    return new MergeOutcome.Applied(state, state.result().orElseThrow());
  }

  /** The current merge result; empty until a patch was applied. */
  public Optional<MergeResult> result() {
    if (digest.count() == 0) {
      return Optional.empty();
    }
    MergeVersion highest =
        patches.isEmpty() ? baseVersion : patches.get(patches.size() - 1).version();
    return Optional.of(
        new MergeResult(
            digest.mergeResultId(mergeKey),
            mergeKey,
            highest,
            document.deepCopy(),
            patches.stream().map(Patch::contribution).toList(),
            digest.count(),
            sources));
  }

  /** Folds the oldest retained patches into the base until at most {@code maxPatches} remain. */
  private MergeState compacted() {
    if (patches.size() <= maxPatches) {
      return this;
    }
    int excess = patches.size() - maxPatches;
    JsonNode nextBase = fold(base, patches.subList(0, excess));
    return new MergeState(
        mergeKey,
        maxPatches,
        nextBase,
        patches.get(excess - 1).version(),
        List.copyOf(patches.subList(excess, patches.size())),
        document,
        digest,
        sources);
  }

  private static JsonNode fold(JsonNode from, List<Patch> patches) {
    JsonNode document = from;
    for (Patch patch : patches) {
      document = JsonMergePatch.apply(document, patch.body());
    }
    return document;
  }

  private boolean isRetained(Contribution contribution) {
    return patches.stream().anyMatch(p -> p.contribution().equals(contribution));
  }

  private int insertionPoint(MergeVersion version) {
    int low = 0;
    int high = patches.size();
    while (low < high) {
      int mid = (low + high) >>> 1;
      if (patches.get(mid).version().compareTo(version) < 0) {
        low = mid + 1;
      } else {
        high = mid;
      }
    }
    return low;
  }

  /** The merge key this state belongs to. */
  public String mergeKey() {
    return mergeKey;
  }

  /** How many patches are retained before the oldest is compacted. */
  public int maxPatches() {
    return maxPatches;
  }

  /** The compacted document: a missing node until a patch was compacted. Read-only. */
  public JsonNode base() {
    return base;
  }

  /** The version of the last compacted patch; empty until one was compacted. */
  public Optional<MergeVersion> baseVersion() {
    return Optional.ofNullable(baseVersion);
  }

  /** The retained patches, in version order, at most {@link #maxPatches()}. */
  public List<Patch> patches() {
    return patches;
  }

  /** All contributions so far, compacted ones included, as a fixed-size digest. */
  public ContributionDigest digest() {
    return digest;
  }

  /** Every source that contributed, sorted. */
  public SortedSet<String> sources() {
    return sources;
  }
}
