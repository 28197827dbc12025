package dev.turnstile.topology.domain.merge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class MergeVersionTest {

  private static final Instant T = Instant.parse("2014-11-18T15:40:26.123456Z");

  @Test
  void selectPrefersExplicitVersionThenSequenceThenEventTime() {
    assertThat(MergeVersion.select(OptionalLong.of(7), OptionalLong.of(99), T, "s", "e"))
        .isEqualTo(MergeVersion.explicit(7, "s", "e"));
    assertThat(MergeVersion.select(OptionalLong.empty(), OptionalLong.of(99), T, "s", "e"))
        .isEqualTo(MergeVersion.sequence(99, "s", "e"));
    assertThat(MergeVersion.select(OptionalLong.empty(), OptionalLong.empty(), T, "s", "e"))
        .isEqualTo(new MergeVersion(MergeVersion.Kind.EVENT_TIME, T.toEpochMilli(), "s", "e"));
  }

  @Test
  void kindRanksBeforeValue() {
    MergeVersion lateClock = MergeVersion.eventTime(T, "device", "e1");
    MergeVersion smallSequence = MergeVersion.sequence(1, "servicebus", "e2");
    MergeVersion smallExplicit = MergeVersion.explicit(0, "backoffice", "e3");

    assertThat(lateClock).isLessThan(smallSequence);
    assertThat(smallSequence).isLessThan(smallExplicit);
  }

  @Test
  void sameKindComparesValueAcrossSources() {
    assertThat(MergeVersion.sequence(5, "z-source", "a"))
        .isLessThan(MergeVersion.sequence(6, "a", "a"));
    assertThat(MergeVersion.eventTime(T, "z", "z"))
        .isLessThan(MergeVersion.eventTime(T.plusMillis(1), "a", "a"));
  }

  @Test
  void tiesAreBrokenBySourceThenEventId() {
    MergeVersion a1 = MergeVersion.explicit(3, "a", "2");
    MergeVersion a2 = MergeVersion.explicit(3, "a", "10");
    MergeVersion b1 = MergeVersion.explicit(3, "b", "1");
    List<MergeVersion> versions = new ArrayList<>(List.of(b1, a1, a2));

    versions.sort(null);

    assertThat(versions).containsExactly(a2, a1, b1);
    assertThat(a1.compareTo(MergeVersion.explicit(3, "a", "2"))).isZero();
  }

  @Test
  void eventTimeIsKeptToTheMillisecond() {
    assertThat(MergeVersion.eventTime(T, "s", "e").value()).isEqualTo(T.toEpochMilli());
  }

  @Test
  void refusesBlankIdentityAndAPatchCarryingAnotherEventsVersion() {
    assertThatIllegalArgumentException().isThrownBy(() -> MergeVersion.explicit(1, " ", "e"));
    assertThatIllegalArgumentException()
        .isThrownBy(
            () ->
                new Patch(
                    "e2", "s", MergeVersion.explicit(1, "s", "e1"), JsonMergePatchTest.json("{}")));
  }
}
