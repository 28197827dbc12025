package dev.turnstile.topology.domain.merge;

import static dev.turnstile.topology.domain.merge.JsonMergePatchTest.json;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

class MergeStateTest {

  private static Patch patch(long version, String eventId, String body) {
    return Patch.of(MergeVersion.explicit(version, "src", eventId), json(body));
  }

  private static MergeOutcome.Applied applied(MergeOutcome outcome) {
    assertThat(outcome).isInstanceOf(MergeOutcome.Applied.class);
    return (MergeOutcome.Applied) outcome;
  }

  @Test
  void aLatePatchDoesNotUndoANewerOne() {
    MergeState state = MergeState.empty("k", 8);
    state = state.apply(patch(2, "e2", "{\"status\":\"settled\",\"b\":2}")).state();

    MergeResult result =
        applied(state.apply(patch(1, "e1", "{\"status\":\"open\",\"a\":1}"))).result();

    assertThat(result.document()).isEqualTo(json("{\"status\":\"settled\",\"a\":1,\"b\":2}"));
    assertThat(result.version()).isEqualTo(MergeVersion.explicit(2, "src", "e2"));
    assertThat(result.contributingEvents())
        .containsExactly(new Contribution("src", "e1"), new Contribution("src", "e2"));
    assertThat(result.contributionCount()).isEqualTo(2);
    assertThat(result.sources()).containsExactly("src");
  }

  @Test
  void aDuplicateHasNoEffect() {
    MergeState state = MergeState.empty("k", 8).apply(patch(1, "e1", "{\"a\":1}")).state();

    MergeOutcome outcome = state.apply(patch(1, "e1", "{\"a\":1}"));

    assertThat(outcome).isInstanceOf(MergeOutcome.Duplicate.class);
    assertThat(outcome.state()).isSameAs(state);
  }

  @Test
  void pastTheBoundTheOldestIsCompactedAndAnOlderPatchIsRejectedAsStale() {
    MergeState state = MergeState.empty("k", 2);
    for (int v = 1; v <= 3; v++) {
      state = state.apply(patch(v * 10, "e" + v, "{\"v" + v + "\":" + v + "}")).state();
    }

    assertThat(state.patches()).extracting(Patch::eventId).containsExactly("e2", "e3");
    assertThat(state.baseVersion()).contains(MergeVersion.explicit(10, "src", "e1"));
    assertThat(state.result().orElseThrow().contributionCount()).isEqualTo(3);

    MergeOutcome stale = state.apply(patch(5, "e0", "{\"v0\":0}"));
    assertThat(stale).isInstanceOf(MergeOutcome.Rejected.class);
    assertThat(((MergeOutcome.Rejected) stale).reason()).isEqualTo(MergeOutcome.Reason.STALE_PATCH);
    assertThat(stale.state()).isSameAs(state);

    // a duplicate of the compacted patch is still recognised by its version
    assertThat(state.apply(patch(10, "e1", "{\"v1\":1}")))
        .isInstanceOf(MergeOutcome.Duplicate.class);
    // newer than the base, older than the retained: still placed exactly
    MergeResult placed =
        applied(state.apply(patch(15, "e15", "{\"v2\":\"x\",\"v3\":\"x\"}"))).result();
    assertThat(placed.document()).isEqualTo(json("{\"v1\":1,\"v2\":2,\"v3\":3}"));
  }

  @Test
  void restoreRebuildsTheSameStateAndAppliesALowerBound() {
    MergeState state = MergeState.empty("k", 4);
    for (int v = 1; v <= 3; v++) {
      state =
          state.apply(patch(v, "e" + v, "{\"v" + v + "\":" + v + ",\"last\":" + v + "}")).state();
    }

    List<Patch> shuffled = new ArrayList<>(state.patches());
    Collections.reverse(shuffled);
    MergeState restored =
        MergeState.restore(
            "k",
            2,
            state.base(),
            state.baseVersion().orElse(null),
            shuffled,
            ContributionDigest.fromBytes(state.digest().toBytes()),
            state.sources());

    assertThat(restored.patches()).hasSize(2);
    MergeResult before = state.result().orElseThrow();
    MergeResult after = restored.result().orElseThrow();
    assertThat(after.document()).isEqualTo(before.document());
    assertThat(after.mergeResultId()).isEqualTo(before.mergeResultId());
    assertThat(after.version()).isEqualTo(before.version());
    assertThat(after.contributionCount()).isEqualTo(3);
    assertThat(after.contributingEvents()).isEqualTo(before.contributingEvents().subList(1, 3));
  }
}
