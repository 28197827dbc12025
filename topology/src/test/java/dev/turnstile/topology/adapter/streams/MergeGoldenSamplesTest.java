package dev.turnstile.topology.adapter.streams;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.turnstile.contracttest.GoldenSamples;
import dev.turnstile.contracttest.GoldenSamples.Sample;
import dev.turnstile.schemas.Json;
import dev.turnstile.topology.domain.merge.MergeResult;
import java.io.IOException;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The merge stages' records are the topology's own ({@link MergeInput}, {@link MergeResult}): their
 * golden samples (schemas' test-jar) survive a trip through them unchanged, so the record the
 * topology writes and the schema downstream teams read cannot drift apart.
 */
class MergeGoldenSamplesTest {

  static Stream<Arguments> samples() {
    return Stream.concat(
        GoldenSamples.of("merge-input.v1").stream().map(s -> Arguments.of(MergeInput.class, s)),
        GoldenSamples.of("merge-result.v1").stream().map(s -> Arguments.of(MergeResult.class, s)));
  }

  @ParameterizedTest(name = "{1} through {0}")
  @MethodSource("samples")
  void everySampleSurvivesATripThroughItsRecord(Class<?> type, Sample sample) throws IOException {
    JsonNode expected = Json.mapper().readTree(sample.json());
    Object record = Json.mapper().readValue(sample.json(), type);
    JsonNode actual = Json.mapper().readTree(Json.mapper().writeValueAsBytes(record));
    assertThat(actual).isEqualTo(expected);
  }
}
