package dev.turnstile.topology.domain.merge;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

class MergeStateProperties {

  private static final String KEY = "session-42";

  @Property(tries = 300)
  void belowTheBoundAnyArrivalOrderGivesTheVersionOrderResult(
      @ForAll("patchSets") List<Patch> patches, @ForAll Random random) {
    List<Patch> arrivals = shuffledWithDuplicates(patches, random);

    MergeState state = MergeState.empty(KEY, patches.size());
    for (Patch patch : arrivals) {
      MergeOutcome outcome = state.apply(patch);
      assertThat(outcome).isNotInstanceOf(MergeOutcome.Rejected.class);
      state = outcome.state();
    }

    MergeResult result = state.result().orElseThrow();
    assertThat(result.document()).isEqualTo(foldInVersionOrder(patches));
    assertThat(result.mergeResultId()).isEqualTo(expectedId(patches));
    assertThat(result.contributionCount()).isEqualTo(patches.size());
    assertThat(result.version()).isEqualTo(Collections.max(versions(patches)));
    assertThat(result.sources())
        .containsExactlyElementsOf(
            patches.stream().map(Patch::source).collect(Collectors.toCollection(TreeSet::new)));
  }

  /**
   * Past the bound: every patch is either placed exactly or rejected as stale, never misplaced; it
   * is never rejected while at most maxPatches newer patches arrived before it.
   */
  @Property(tries = 300)
  void pastTheBoundEachPatchIsPlacedExactlyOrRejectedAsStale(
      @ForAll("patchSets") List<Patch> patches,
      @ForAll Random random,
      @ForAll @IntRange(min = 1, max = 4) int maxPatches) {
    List<Patch> arrivals = shuffledWithDuplicates(patches, random);

    MergeState state = MergeState.empty(KEY, maxPatches);
    List<Patch> accepted = new ArrayList<>();
    List<Patch> arrived = new ArrayList<>();
    for (Patch patch : arrivals) {
      MergeOutcome outcome = state.apply(patch);
      long newerArrivedBefore =
          arrived.stream()
              .filter(p -> p.version().compareTo(patch.version()) > 0)
              .map(Patch::contribution)
              .distinct()
              .count();
      if (outcome instanceof MergeOutcome.Applied applied) {
        accepted.add(patch);
        assertThat(applied.result().document()).isEqualTo(foldInVersionOrder(accepted));
      } else {
        assertThat(outcome.state()).isSameAs(state);
      }
      if (outcome instanceof MergeOutcome.Rejected rejected) {
        assertThat(rejected.reason()).isEqualTo(MergeOutcome.Reason.STALE_PATCH);
        assertThat(newerArrivedBefore).isGreaterThan(maxPatches);
        // either never placed, or a late duplicate of a patch already compacted into the base
        assertThat(state.patches())
            .extracting(Patch::contribution)
            .doesNotContain(patch.contribution());
      }
      state = outcome.state();
      arrived.add(patch);
      assertThat(state.patches().size()).isLessThanOrEqualTo(maxPatches);
    }

    MergeResult result = state.result().orElseThrow();
    assertThat(result.document()).isEqualTo(foldInVersionOrder(accepted));
    assertThat(result.mergeResultId()).isEqualTo(expectedId(accepted));
    assertThat(result.contributionCount()).isEqualTo(accepted.size());
    assertThat(result.contributingEvents()).hasSizeLessThanOrEqualTo(maxPatches);
  }

  @Property(tries = 200)
  void pastTheBoundInVersionOrderArrivalLosesNothing(
      @ForAll("patchSets") List<Patch> patches,
      @ForAll Random random,
      @ForAll @IntRange(min = 1, max = 3) int maxPatches) {
    List<Patch> arrivals = new ArrayList<>(patches);
    arrivals.sort(Comparator.comparing(Patch::version));
    List<Patch> withDuplicates = new ArrayList<>();
    for (Patch patch : arrivals) {
      withDuplicates.add(patch);
      if (random.nextInt(3) == 0) {
        withDuplicates.add(patch);
      }
    }

    MergeState state = MergeState.empty(KEY, maxPatches);
    for (Patch patch : withDuplicates) {
      state = state.apply(patch).state();
    }

    assertThat(state.result().orElseThrow().document()).isEqualTo(foldInVersionOrder(patches));
    assertThat(state.result().orElseThrow().mergeResultId()).isEqualTo(expectedId(patches));
  }

  @Provide
  Arbitrary<List<Patch>> patchSets() {
    Arbitrary<MergeVersion> versions =
        Combinators.combine(
                Arbitraries.of(MergeVersion.Kind.class),
                Arbitraries.longs().between(0, 5),
                Arbitraries.of("device/station-1", "servicebus/billing"),
                Arbitraries.strings().withChars("abc").ofMinLength(1).ofMaxLength(2))
            .as(MergeVersion::new);
    return Combinators.combine(versions, bodies())
        .as(Patch::of)
        .list()
        .ofMinSize(1)
        .ofMaxSize(10)
        .uniqueElements(Patch::contribution);
  }

  /** Small objects over few member names, so patches overlap, delete and nest. */
  private static Arbitrary<JsonNode> bodies() {
    Arbitrary<JsonNode> leaf =
        Arbitraries.oneOf(
            Arbitraries.integers().between(0, 3).map(i -> JsonNodeFactory.instance.numberNode(i)),
            Arbitraries.just(JsonNodeFactory.instance.nullNode()),
            Arbitraries.integers()
                .between(0, 3)
                .map(i -> JsonNodeFactory.instance.arrayNode().add(i)));
    Arbitrary<JsonNode> inner = objects(leaf);
    return objects(Arbitraries.oneOf(leaf, inner));
  }

  private static Arbitrary<JsonNode> objects(Arbitrary<JsonNode> values) {
    return Arbitraries.maps(Arbitraries.of("a", "b", "c"), values)
        .ofMaxSize(3)
        .map(
            members -> {
              ObjectNode node = JsonNodeFactory.instance.objectNode();
              members.forEach(node::set);
              return node;
            });
  }

  private static List<Patch> shuffledWithDuplicates(List<Patch> patches, Random random) {
    List<Patch> arrivals = new ArrayList<>(patches);
    for (Patch patch : patches) {
      if (random.nextInt(3) == 0) {
        arrivals.add(patch);
      }
    }
    Collections.shuffle(arrivals, random);
    return arrivals;
  }

  private static JsonNode foldInVersionOrder(List<Patch> patches) {
    List<Patch> sorted = new ArrayList<>(patches);
    sorted.sort(Comparator.comparing(Patch::version));
    JsonNode document = null;
    for (Patch patch : sorted) {
      document = JsonMergePatch.apply(document, patch.body());
    }
    return document;
  }

  private static String expectedId(List<Patch> patches) {
    Set<Contribution> contributions =
        patches.stream().map(Patch::contribution).collect(Collectors.toSet());
    return ContributionDigest.of(contributions).mergeResultId(KEY);
  }

  private static List<MergeVersion> versions(List<Patch> patches) {
    return patches.stream().map(Patch::version).toList();
  }
}
