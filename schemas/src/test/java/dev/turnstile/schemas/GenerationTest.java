package dev.turnstile.schemas;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class GenerationTest {

  @Test
  void aNamedGenerationRenamesWhatTheTopologyWritesAndNothingElse() {
    Generation g2 = Generation.named("g2");

    assertThat(g2.topicName(TopicCatalogue.DEVICE_SESSIONS, "prod."))
        .isEqualTo("prod.g2.device-sessions.v1");
    assertThat(g2.topicName(TopicCatalogue.MERGE_INPUTS, "")).isEqualTo("g2.merge-inputs.v1");
    assertThat(g2.topicName(TopicCatalogue.DEVICE_EVENTS_RAW, "prod."))
        .isEqualTo("prod.device-events.raw.v1");
    assertThat(g2.topicName(TopicCatalogue.SERVICEBUS_MESSAGES_RAW, ""))
        .isEqualTo("servicebus-messages.raw.v1");
    assertThat(g2.applicationId("turnstile-topology")).isEqualTo("turnstile-topology.g2");
  }

  @Test
  void theDefaultGenerationKeepsTheCatalogueNames() {
    for (Topic topic : TopicCatalogue.ALL) {
      assertThat(Generation.DEFAULT.topicName(topic, "p.")).isEqualTo(topic.name("p."));
    }
    assertThat(Generation.DEFAULT.applicationId("turnstile-topology"))
        .isEqualTo("turnstile-topology");
    assertThat(Generation.named(Generation.DEFAULT_NAME)).isEqualTo(Generation.DEFAULT);
    assertThat(Generation.DEFAULT).hasToString("default");
  }

  @Test
  void outputsAreWhatTheTopologyWritesAndRawInputsTheRest() {
    assertThat(Generation.outputs())
        .containsExactly(
            TopicCatalogue.DEVICE_SESSIONS,
            TopicCatalogue.REJECTED_EVENTS,
            TopicCatalogue.MERGE_INPUTS,
            TopicCatalogue.MERGE_RESULTS,
            TopicCatalogue.POST_MERGE);
    assertThat(Generation.rawInputs())
        .containsExactly(TopicCatalogue.DEVICE_EVENTS_RAW, TopicCatalogue.SERVICEBUS_MESSAGES_RAW);
  }

  @Test
  void namesThatWouldNotMakeAPrefixOfTheirOwnAreRefused() {
    // "default" names the generation without a name, tested below.
    for (String bad : new String[] {"G2", "g.2", "2g", "g_2", "-g", "", "a".repeat(33)}) {
      assertThatThrownBy(() -> Generation.named(bad).applicationId("x"))
          .as(bad)
          .isInstanceOf(IllegalArgumentException.class);
    }
    assertThatThrownBy(() -> new Generation("default")).hasMessageContaining("leave it empty");
    assertThat(Generation.named("session-max-8h").topicName(TopicCatalogue.POST_MERGE, ""))
        .isEqualTo("session-max-8h.post-merge.v1");
  }
}
