package dev.turnstile.schemas;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.turnstile.contracttest.GoldenSamples;
import dev.turnstile.contracttest.GoldenSamples.Sample;
import dev.turnstile.contracttest.SchemaValidator;
import dev.turnstile.schemas.DeviceEvent.AsSent;
import java.io.IOException;
import java.io.InputStream;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The JSON Schemas of device events and the Java rules ({@link DeviceEvent}, {@link Identifier},
 * {@link DeviceEventType}, {@link OccurredAt}) say the same thing: every golden sample passes both,
 * every refused sample ({@code golden-refused/}) breaks both, and the schemas' identifier and type
 * match the Java ones value for value. Before this test the two schemas disagreed on identifiers
 * made only of dots ({@code golden-refused/device-event.v1/device-id-only-dots.json}).
 */
class DeviceEventRulesAgreementTest {

  private static final String REQUEST = "device-event-request.v1";
  private static final String EVENT = "device-event.v1";

  /** Inside the default window for the reference data (2014-2015) and the golden samples. */
  private static final Instant RECEIVED_AT = Instant.parse("2026-01-02T03:04:05Z");

  static Stream<Sample> validRequests() {
    return GoldenSamples.of(REQUEST).stream();
  }

  static Stream<Sample> refusedRequests() {
    return GoldenSamples.refused(REQUEST).stream();
  }

  static Stream<Sample> validEvents() {
    return GoldenSamples.of(EVENT).stream();
  }

  static Stream<Sample> refusedEvents() {
    return GoldenSamples.refused(EVENT).stream();
  }

  @ParameterizedTest
  @MethodSource("validRequests")
  void aGoldenRequestPassesTheSchemaAndTheJavaRules(Sample sample) throws Exception {
    SchemaValidator.assertValid(GoldenSamples.schemaResource(REQUEST), sample.json());
    assertThat(create(sample)).isInstanceOf(DeviceEvent.Valid.class);
  }

  @ParameterizedTest
  @MethodSource("refusedRequests")
  void aRefusedRequestBreaksTheSchemaAndTheJavaRules(Sample sample) throws Exception {
    assertThat(SchemaValidator.errors(GoldenSamples.schemaResource(REQUEST), sample.json()))
        .as("the schema refuses %s", sample)
        .isNotEmpty();
    assertThat(create(sample))
        .as("the Java rules refuse %s", sample)
        .isInstanceOf(DeviceEvent.Invalid.class);
  }

  @ParameterizedTest
  @MethodSource("validEvents")
  void aGoldenEventPassesTheSchemaAndTheJavaRules(Sample sample) throws Exception {
    SchemaValidator.assertValid(GoldenSamples.schemaResource(EVENT), sample.json());
    assertThat(javaRefusal(sample)).isEmpty();
  }

  @ParameterizedTest
  @MethodSource("refusedEvents")
  void aRefusedEventBreaksTheSchemaAndTheJavaRules(Sample sample) throws Exception {
    assertThat(SchemaValidator.errors(GoldenSamples.schemaResource(EVENT), sample.json()))
        .as("the schema refuses %s", sample)
        .isNotEmpty();
    assertThat(javaRefusal(sample)).as("the Java rules refuse %s", sample).isPresent();
  }

  @ParameterizedTest
  @ValueSource(strings = {REQUEST, EVENT})
  void theSchemasTypeEnumIsTheJavaEnum(String schema) throws IOException {
    List<String> names = new ArrayList<>();
    schemaDocument(schema)
        .path("properties")
        .path("type")
        .path("enum")
        .forEach(n -> names.add(n.asText()));
    assertThat(names)
        .containsExactlyElementsOf(Stream.of(DeviceEventType.values()).map(Enum::name).toList());
  }

  @ParameterizedTest
  @ValueSource(strings = {REQUEST, EVENT})
  void theSchemasIdentifierIsTheJavaIdentifier(String schema) throws IOException {
    JsonNode identifier = schemaDocument(schema).path("$defs").path("identifier");
    Pattern pattern = Pattern.compile(identifier.path("pattern").asText());
    int min = identifier.path("minLength").asInt();
    int max = identifier.path("maxLength").asInt();
    for (String probe : probes()) {
      boolean bySchema =
          probe.length() >= min && probe.length() <= max && pattern.matcher(probe).find();
      assertThat(bySchema).as("%s on %s", schema, probe).isEqualTo(Identifier.isValid(probe));
    }
  }

  @Test
  void theTypeChoicesInWordsNameEveryType() {
    for (DeviceEventType type : DeviceEventType.values()) {
      assertThat(DeviceEventType.choices()).contains(type.name());
    }
  }

  private static List<String> probes() {
    return List.of(
        "",
        ".",
        "..",
        "...",
        "a",
        "a.b",
        ".a",
        "..a..",
        "station-7",
        "e:7f3c2a91",
        "~_.-:",
        "a/b",
        "a b",
        "\u00e9",
        "x".repeat(128),
        "x".repeat(129),
        ".".repeat(128));
  }

  private static DeviceEvent.Checked create(Sample sample) throws Exception {
    JsonNode body = StrictJson.senders().readTree(sample.json());
    AsSent sent =
        new AsSent(
            "station-7",
            text(body, "eventId"),
            text(body, "type"),
            text(body, "occurredAt"),
            text(body, "sessionRef"),
            body.get("attributes"));
    return DeviceEvent.create(sent, RECEIVED_AT, OccurredAtWindow.DEFAULT);
  }

  /** Why the topology's reading would refuse the stored event, as it reads it; empty if not. */
  private static Optional<String> javaRefusal(Sample sample) throws IOException {
    DeviceEvent event;
    try {
      event =
          StrictJson.senders()
              .treeToValue(StrictJson.senders().readTree(sample.json()), DeviceEvent.class);
    } catch (StrictJson.MalformedJsonException e) {
      return Optional.of(e.getMessage());
    }
    List<Violation> violations = event.violations();
    return violations.isEmpty() ? Optional.empty() : Optional.of(violations.toString());
  }

  private static String text(JsonNode body, String name) {
    JsonNode value = body.get(name);
    return value == null || value.isNull() ? null : value.asText();
  }

  private static JsonNode schemaDocument(String schema) throws IOException {
    try (InputStream in =
        DeviceEventRulesAgreementTest.class
            .getClassLoader()
            .getResourceAsStream(GoldenSamples.schemaResource(schema))) {
      return Json.mapper().readTree(in);
    }
  }
}
