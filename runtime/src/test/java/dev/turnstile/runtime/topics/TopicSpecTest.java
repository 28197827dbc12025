package dev.turnstile.runtime.topics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.turnstile.schemas.Generation;
import dev.turnstile.schemas.TopicCatalogue;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TopicSpecTest {

  @Test
  void minInSyncReplicasIsTwoFromThreeReplicasOn() {
    assertThat(TopicSpec.of(TopicCatalogue.DEVICE_SESSIONS, "", (short) 3).configs())
        .containsEntry("min.insync.replicas", "2");
    assertThat(TopicSpec.of(TopicCatalogue.DEVICE_SESSIONS, "", (short) 5).configs())
        .containsEntry("min.insync.replicas", "2");
    assertThat(TopicSpec.of(TopicCatalogue.DEVICE_SESSIONS, "", (short) 2).configs())
        .doesNotContainKey("min.insync.replicas");
    assertThat(TopicSpec.of(TopicCatalogue.DEVICE_SESSIONS, "", (short) 1).configs())
        .doesNotContainKey("min.insync.replicas");
  }

  @Test
  void theLenientComparisonLooksOnlyAtPartitionsAndCleanupPolicy() {
    TopicSpec spec = TopicSpec.of(TopicCatalogue.DEVICE_EVENTS_RAW, "p.", (short) 3);
    ObservedTopic observed =
        new ObservedTopic(
            "p.device-events.raw.v1",
            "id",
            6,
            1,
            Map.of("retention.ms", "1", "cleanup.policy", "delete"));

    assertThat(ClusterTopics.drift(spec, observed, false)).isEmpty();
    assertThat(ClusterTopics.drift(spec, observed, true))
        .extracting(TopicDrift::field)
        .containsExactlyInAnyOrder("replicas", "retention.ms", "min.insync.replicas");
    assertThat(ClusterTopics.drift(spec, null, false))
        .containsExactly(TopicDrift.missing(spec.name()));
  }

  @Test
  void aGenerationsCatalogueIsTheSharedRawTopicsAndItsOwnOutputs() {
    assertThat(TopicSpec.catalogue("p.", Generation.named("g2"), (short) 1))
        .extracting(TopicSpec::name)
        .containsExactly(
            "p.device-events.raw.v1",
            "p.g2.device-sessions.v1",
            "p.g2.rejected-events.v1",
            "p.servicebus-messages.raw.v1",
            "p.g2.merge-inputs.v1",
            "p.g2.merge-results.v1",
            "p.g2.post-merge.v1");
    assertThat(TopicSpec.catalogue("p.", Generation.named("g2"), (short) 3).get(1))
        .isEqualTo(
            new TopicSpec(
                "p.g2.device-sessions.v1",
                6,
                (short) 3,
                TopicSpec.of(TopicCatalogue.DEVICE_SESSIONS, "p.", (short) 3).configs()));
    assertThat(TopicSpec.catalogue("p.", (short) 1))
        .isEqualTo(TopicSpec.catalogue("p.", Generation.DEFAULT, (short) 1));
  }
}
