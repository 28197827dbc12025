package dev.turnstile.topology.adapter.streams;

import static dev.turnstile.schemas.DeviceEventType.Finished;
import static dev.turnstile.schemas.DeviceEventType.Started;
import static dev.turnstile.topology.adapter.streams.TopologyFixture.event;
import static org.assertj.core.api.Assertions.assertThat;

import dev.turnstile.schemas.TopicCatalogue;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.json.schema.Draft;
import io.vertx.json.schema.JsonSchema;
import io.vertx.json.schema.JsonSchemaOptions;
import io.vertx.json.schema.OutputFormat;
import io.vertx.json.schema.OutputUnit;
import io.vertx.json.schema.Validator;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The merge stages' outputs match the JSON Schemas the topic catalogue names. */
class MergeOutputSchemasTest {

  @TempDir Path stateDir;

  @Test
  void mergeInputsResultsPostMergeAndRejectionsMatchTheirSchemas() {
    try (TopologyFixture topology = new TopologyFixture(stateDir)) {
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
      assertValid(
          TopicCatalogue.MERGE_RESULTS.valueSchema(), topology.mergeResults.readValuesToList(), 2);
      assertValid(
          TopicCatalogue.POST_MERGE.valueSchema(), topology.postMerge.readValuesToList(), 1);
      assertValid(
          TopicCatalogue.REJECTED_EVENTS.valueSchema(), topology.rejected.readValuesToList(), 1);
    }
  }

  private static void assertValid(String resource, List<byte[]> values, int expected) {
    assertThat(values).hasSize(expected);
    Validator validator = validator(resource);
    for (byte[] value : values) {
      OutputUnit result = validator.validate(new JsonObject(Buffer.buffer(value)));
      assertThat(result.getValid())
          .as("%s against %s: %s", new String(value, StandardCharsets.UTF_8), resource, result)
          .isTrue();
    }
  }

  private static Validator validator(String resource) {
    try (InputStream in =
        MergeOutputSchemasTest.class.getClassLoader().getResourceAsStream(resource)) {
      JsonObject schema = new JsonObject(Buffer.buffer(in.readAllBytes()));
      return Validator.create(
          JsonSchema.of(schema),
          new JsonSchemaOptions()
              .setDraft(Draft.DRAFT202012)
              .setBaseUri(schema.getString("$id"))
              .setOutputFormat(OutputFormat.Basic));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
