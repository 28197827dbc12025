package dev.turnstile.schemas;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.turnstile.contracttest.GoldenSamples;
import dev.turnstile.contracttest.GoldenSamples.Sample;
import dev.turnstile.contracttest.SchemaValidator;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every schema has golden samples; each validates against its schema and survives a trip through
 * its record unchanged. The merge stages' records live in the topology, which runs the same trip
 * for {@code merge-input.v1} and {@code merge-result.v1} ({@code MergeGoldenSamplesTest}).
 */
class GoldenSamplesTest {

  private static final Path SCHEMAS = Path.of("src/main/resources/dev/turnstile/schemas");

  /** Schema name to the record in this module that carries it. */
  static final Map<String, Class<?>> RECORDS =
      Map.of(
          "device-event-request.v1", DeviceEventRequest.class,
          "device-event.v1", DeviceEvent.class,
          "device-session-event.v1", DeviceSessionEvent.class,
          "rejected-event.v1", RejectedEvent.class,
          "post-merge.v1", SettledChargingSession.class);

  static Stream<String> schemas() throws IOException {
    try (Stream<Path> files = Files.list(SCHEMAS)) {
      return files
          .map(f -> f.getFileName().toString())
          .filter(n -> n.endsWith(".schema.json"))
          .map(n -> n.substring(0, n.length() - ".schema.json".length()))
          .sorted()
          .toList()
          .stream();
    }
  }

  static Stream<Arguments> samples() throws IOException {
    return schemas().flatMap(s -> GoldenSamples.of(s).stream().map(g -> Arguments.of(s, g)));
  }

  @ParameterizedTest
  @MethodSource("schemas")
  void everySchemaHasAFewGoldenSamples(String schema) {
    assertThat(GoldenSamples.of(schema)).as(schema).hasSizeGreaterThanOrEqualTo(2);
  }

  @ParameterizedTest(name = "{0}/{1}")
  @MethodSource("samples")
  void everySampleValidatesAgainstItsSchema(String schema, Sample sample) {
    SchemaValidator.assertValid(GoldenSamples.schemaResource(schema), sample.json());
  }

  @ParameterizedTest(name = "{0}/{1}")
  @MethodSource("samples")
  void everySampleSurvivesATripThroughItsRecord(String schema, Sample sample) throws IOException {
    Class<?> type = RECORDS.get(schema);
    if (type == null) {
      return; // a topology record: MergeGoldenSamplesTest
    }
    JsonNode expected = Json.mapper().readTree(sample.json());
    Object record = Json.mapper().readValue(sample.json(), type);
    JsonNode actual = Json.mapper().readTree(Json.mapper().writeValueAsBytes(record));
    assertThat(actual).as("%s through %s", sample, type.getSimpleName()).isEqualTo(expected);
  }

  @Test
  void aSampleThatBreaksItsSchemaIsCaught() {
    byte[] closedWithoutEnd =
        """
        {"type":"Closed","deviceId":"582873","sessionId":"0b8e5c1e-3f5d-3c8a-9a4e-2d7f1b6c9e10",
         "startedAt":"2014-11-18T15:40:26-08:00","startEventId":"s"}
        """
            .getBytes(java.nio.charset.StandardCharsets.UTF_8);
    assertThat(
            SchemaValidator.errors(
                GoldenSamples.schemaResource("device-session-event.v1"), closedWithoutEnd))
        .isNotEmpty();
  }
}
