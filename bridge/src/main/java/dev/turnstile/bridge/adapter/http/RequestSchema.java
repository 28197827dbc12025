package dev.turnstile.bridge.adapter.http;

import dev.turnstile.bridge.application.AcceptDeviceEventService;
import dev.turnstile.bridge.port.in.AcceptDeviceEventUseCase.Violation;
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
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The request body's JSON Schema (2020-12), from the contracts module. */
final class RequestSchema {

  static final String RESOURCE = "dev/turnstile/schemas/device-event-request.v1.schema.json";

  /** Applicators whose errors only repeat those of their subschemas. */
  private static final Set<String> UMBRELLAS = Set.of("properties", "$ref", "allOf", "anyOf");

  private static final Pattern QUOTED = Pattern.compile("\"([^\"]*)\"");

  /** Keywords whose failure on a field is best explained by that field's rule in words. */
  private static final Set<String> FORM_KEYWORDS =
      Set.of("pattern", "format", "minLength", "maxLength");

  private final Validator validator;
  private final Set<String> declaredProperties;
  private final Set<String> identifierPointers = new LinkedHashSet<>();

  RequestSchema() {
    JsonObject schema = load();
    JsonObject properties = schema.getJsonObject("properties");
    this.declaredProperties = properties.fieldNames();
    for (String name : declaredProperties) {
      Object property = properties.getValue(name);
      if (property instanceof JsonObject p && "#/$defs/identifier".equals(p.getString("$ref"))) {
        identifierPointers.add("/" + name);
      }
    }
    this.validator =
        Validator.create(
            JsonSchema.of(schema),
            new JsonSchemaOptions()
                .setDraft(Draft.DRAFT202012)
                .setBaseUri(schema.getString("$id"))
                .setOutputFormat(OutputFormat.Basic));
  }

  /** The violations of a decoded JSON value (object, array, scalar or null); empty if valid. */
  List<Violation> violations(Object body) {
    OutputUnit result = validator.validate(body);
    if (Boolean.TRUE.equals(result.getValid())) {
      return List.of();
    }
    Set<Violation> violations = new LinkedHashSet<>();
    List<OutputUnit> units = result.getErrors() == null ? List.of(result) : result.getErrors();
    for (OutputUnit unit : units) {
      String keyword = keyword(unit.getKeywordLocation());
      String pointer = pointer(unit.getInstanceLocation());
      if (UMBRELLAS.contains(keyword) || misreportedAdditional(keyword, pointer)) {
        continue;
      }
      if ("required".equals(keyword)) {
        pointer = pointer + "/" + quoted(unit.getError());
      }
      violations.add(new Violation(pointer, keyword, message(pointer, keyword, unit, body)));
    }
    return new ArrayList<>(violations);
  }

  /**
   * The validator's own words ("String does not match pattern") do not tell a device what to send;
   * a field with a stated rule gets that rule instead.
   */
  private String message(String pointer, String keyword, OutputUnit unit, Object body) {
    if (FORM_KEYWORDS.contains(keyword)) {
      if (identifierPointers.contains(pointer)) {
        return pointer.substring(1) + " must be " + AcceptDeviceEventService.IDENTIFIER_RULE;
      }
      if ("/occurredAt".equals(pointer)) {
        Object value = body instanceof JsonObject json ? json.getValue("occurredAt") : null;
        return AcceptDeviceEventService.timestampProblem(value instanceof String s ? s : null);
      }
    }
    return unit.getError();
  }

  /**
   * The validator also reports a declared property that failed its own subschema under {@code
   * additionalProperties}; that error is already reported at its own keyword.
   */
  private boolean misreportedAdditional(String keyword, String pointer) {
    return "additionalProperties".equals(keyword)
        && pointer.lastIndexOf('/') == 0
        && declaredProperties.contains(pointer.substring(1));
  }

  private static String quoted(String message) {
    Matcher matcher = QUOTED.matcher(message == null ? "" : message);
    return matcher.find() ? matcher.group(1) : "";
  }

  private static String pointer(String instanceLocation) {
    if (instanceLocation == null) {
      return "";
    }
    return instanceLocation.startsWith("#") ? instanceLocation.substring(1) : instanceLocation;
  }

  private static String keyword(String keywordLocation) {
    if (keywordLocation == null || keywordLocation.isEmpty()) {
      return "schema";
    }
    return keywordLocation.substring(keywordLocation.lastIndexOf('/') + 1);
  }

  private static JsonObject load() {
    try (InputStream in = RequestSchema.class.getClassLoader().getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException("schema resource missing: " + RESOURCE);
      }
      return new JsonObject(new String(in.readAllBytes(), StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
