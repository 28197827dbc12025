package dev.turnstile.topology.port.in;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.turnstile.contracttest.GoldenSamples;
import dev.turnstile.contracttest.GoldenSamples.Sample;
import dev.turnstile.schemas.Json;
import java.io.IOException;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The query views are the topology's own records: their golden samples (schemas' test-jar) survive
 * a trip through them unchanged, so the JSON a query answers and its schema cannot drift apart.
 */
class QueryViewGoldenSamplesTest {

  static Stream<Arguments> samples() {
    return Stream.concat(
        GoldenSamples.of("device-sessions-view.v1").stream()
            .map(s -> Arguments.of(DeviceSessionsView.class, s)),
        GoldenSamples.of("merged-document-view.v1").stream()
            .map(s -> Arguments.of(MergedDocumentView.class, s)));
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
