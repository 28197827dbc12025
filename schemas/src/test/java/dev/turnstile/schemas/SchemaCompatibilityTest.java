package dev.turnstile.schemas;

import static dev.turnstile.schemas.SchemaCompatibility.breakingChanges;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.turnstile.schemas.SchemaCompatibility.Rule;
import dev.turnstile.schemas.SchemaCompatibility.Violation;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The current schemas keep every promise the released v1 schemas made; and the checker that says so
 * can fail on each of its rules.
 */
class SchemaCompatibilityTest {

  private static final Path CURRENT = Path.of("src/main/resources/dev/turnstile/schemas");
  private static final Path RELEASED = CURRENT.resolve("released/v1");

  static Stream<String> releasedSchemas() throws IOException {
    try (Stream<Path> files = Files.list(RELEASED)) {
      return files
          .map(f -> f.getFileName().toString())
          .filter(n -> n.endsWith(".schema.json"))
          .sorted()
          .toList()
          .stream();
    }
  }

  @ParameterizedTest
  @MethodSource("releasedSchemas")
  void theCurrentSchemaBreaksNoConsumerOfTheReleasedOne(String file) throws IOException {
    Path current = CURRENT.resolve(file);
    assertThat(current).as("released schema %s was removed", file).exists();

    List<Violation> violations =
        breakingChanges(
            Json.mapper().readTree(RELEASED.resolve(file).toFile()),
            Json.mapper().readTree(current.toFile()));

    assertThat(violations)
        .as("%s breaks consumers of released v1; publish a v2 schema and topic instead", file)
        .isEmpty();
  }

  @Test
  void everyCurrentSchemaHasAReleasedBaseline() throws IOException {
    try (Stream<Path> files = Files.list(CURRENT)) {
      files
          .filter(f -> f.getFileName().toString().endsWith(".schema.json"))
          .forEach(f -> assertThat(RELEASED.resolve(f.getFileName())).exists());
    }
  }

  private static final String BASE =
      """
      {"type":"object","required":["id"],
       "properties":{
         "id":{"type":"string"},
         "kind":{"enum":["Started","Finished"]},
         "meta":{"type":"object","properties":{"note":{"type":"string"}}}}}
      """;

  private static List<Violation> against(String current) throws IOException {
    return breakingChanges(Json.mapper().readTree(BASE), Json.mapper().readTree(current));
  }

  @Test
  void addingAnOptionalPropertyOrAnEnumValueIsCompatible() throws IOException {
    assertThat(
            against(
                """
                {"type":"object","required":["id"],
                 "properties":{
                   "id":{"type":"string"},
                   "kind":{"enum":["Started","Finished","Paused"]},
                   "meta":{"type":"object","properties":{"note":{"type":"string"},"x":{}}},
                   "extra":{"type":"integer"}}}
                """))
        .isEmpty();
  }

  @Test
  void aRemovedNestedPropertyIsNamedByItsPointer() throws IOException {
    assertThat(
            against(
                """
                {"type":"object","required":["id"],
                 "properties":{"id":{"type":"string"},"kind":{"enum":["Started","Finished"]},
                   "meta":{"type":"object","properties":{}}}}
                """))
        .containsExactly(
            new Violation(
                Rule.PROPERTY_REMOVED, "/properties/meta/properties/note", "note removed"));
  }

  @Test
  void aChangedTypeBreaks() throws IOException {
    assertThat(
            against(BASE.replace("\"id\":{\"type\":\"string\"}", "\"id\":{\"type\":\"integer\"}")))
        .extracting(Violation::rule, Violation::pointer)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(Rule.TYPE_CHANGED, "/properties/id/type"));
  }

  @Test
  void aNewRequiredEntryBreaks() throws IOException {
    assertThat(against(BASE.replace("\"required\":[\"id\"]", "\"required\":[\"id\",\"kind\"]")))
        .containsExactly(new Violation(Rule.REQUIRED_ADDED, "/required", "kind newly required"));
  }

  @Test
  void aNarrowedEnumBreaks() throws IOException {
    assertThat(against(BASE.replace("[\"Started\",\"Finished\"]", "[\"Started\"]")))
        .containsExactly(
            new Violation(Rule.ENUM_NARROWED, "/properties/kind/enum", "Finished removed"));
  }

  @Test
  void closingAdditionalPropertiesBreaks() throws IOException {
    assertThat(
            against(
                BASE.replace(
                    "\"meta\":{\"type\":\"object\",",
                    "\"meta\":{\"type\":\"object\",\"additionalProperties\":false,")))
        .containsExactly(
            new Violation(
                Rule.ADDITIONAL_PROPERTIES_CLOSED,
                "/properties/meta/additionalProperties",
                "newly false"));
  }

  @Test
  void aBreakInsideDefsIsFoundThroughTheDefinition() throws IOException {
    JsonNode released =
        Json.mapper()
            .readTree(
                "{\"$defs\":{\"version\":{\"properties\":{\"kind\":{\"enum\":[\"A\",\"B\"]}}}}}");
    JsonNode current =
        Json.mapper()
            .readTree("{\"$defs\":{\"version\":{\"properties\":{\"kind\":{\"enum\":[\"A\"]}}}}}");
    assertThat(breakingChanges(released, current))
        .extracting(Violation::toString)
        .containsExactly("ENUM_NARROWED at /$defs/version/properties/kind/enum: B removed");
  }
}
