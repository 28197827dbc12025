package dev.turnstile.topology.adapter.streams;

import static dev.turnstile.schemas.DeviceEventType.Finished;
import static dev.turnstile.schemas.DeviceEventType.Started;
import static dev.turnstile.topology.adapter.streams.TopologyFixture.event;
import static org.assertj.core.api.Assertions.assertThat;

import dev.turnstile.contracttest.SchemaValidator;
import dev.turnstile.schemas.TopicCatalogue;
import dev.turnstile.topology.domain.merge.CompletenessRule;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The merge stages' outputs match the JSON Schemas the topic catalogue names. The fixture checks
 * every output topic it reads; the internal {@code merge-inputs.v1} is checked here.
 */
class MergeOutputSchemasTest {

  @TempDir Path stateDir;

  @Test
  void mergeInputsResultsPostMergeAndRejectionsMatchTheirSchemas() {
    // Every patch through merge-inputs.v1 (none merged in place), so both feeders' values are read.
    try (TopologyFixture topology =
        new TopologyFixture(stateDir, Map.of(), CompletenessRule.settledChargingSession(), 0)) {
      var mergeInputs =
          topology.driver.createOutputTopic(
              TopicCatalogue.MERGE_INPUTS.baseName(),
              new StringDeserializer(),
              new ByteArrayDeserializer());
      topology.send(event("st-1", "s", Started, "r1", MergeTopologyTest.T0));
      topology.send(event("st-1", "f", Finished, "r1", MergeTopologyTest.T0.plusHours(2)));
      topology.sendServiceBus("r1", "m1", 7, "r1", bytes(MergeTopologyTest.BILLING));
      topology.sendServiceBus("r1", "m2", 8, null, bytes(MergeTopologyTest.BILLING));

      assertValid(TopicCatalogue.MERGE_INPUTS.valueSchema(), mergeInputs.readValuesToList(), 2);
      assertThat(topology.mergeResults.readValuesToList()).hasSize(2);
      assertThat(topology.postMerge.readValuesToList()).hasSize(1);
      assertThat(topology.rejected.readValuesToList()).hasSize(1);
    }
  }

  private static void assertValid(String resource, List<byte[]> values, int expected) {
    assertThat(values).hasSize(expected);
    values.forEach(value -> SchemaValidator.assertValid(resource, value));
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
