package dev.turnstile.runtime.topics;

import static org.assertj.core.api.Assertions.assertThat;

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
}
