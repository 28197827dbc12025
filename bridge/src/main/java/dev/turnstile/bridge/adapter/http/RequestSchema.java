package dev.turnstile.bridge.adapter.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import dev.turnstile.bridge.adapter.jsonschema.JsonSchemaBodyValidator;
import dev.turnstile.schemas.Identifier;
import dev.turnstile.schemas.Json;
import dev.turnstile.schemas.OccurredAt;
import dev.turnstile.schemas.Violation;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The request body's JSON Schema (2020-12), from the contracts module, checked with networknt's
 * json-schema-validator on the tree {@link dev.turnstile.schemas.StrictJson} read (no conversion,
 * no second parse). {@code format} is asserted, as the schema means it.
 *
 * <p>Why this validator: it compiles the schema once into validators, about 1 µs per event here,
 * where Vert.x's interprets the schema document on every call (about 21 µs, a third of the bridge's
 * CPU per event, issue 14's profile).
 */
final class RequestSchema {

  static final String RESOURCE = "dev/turnstile/schemas/device-event-request.v1.schema.json";

  /** Keywords whose failure on a field is best explained by that field's rule in words. */
  private static final Set<String> FORM_KEYWORDS =
      Set.of("pattern", "format", "minLength", "maxLength");

  /** Keywords that name the member they are about (the instance location is its parent). */
  private static final Set<String> MEMBER_KEYWORDS = Set.of("required", "additionalProperties");

  private final Schema schema;
  private final Set<String> identifierPointers = new LinkedHashSet<>();

  RequestSchema() {
    JsonNode document = load();
    document
        .path("properties")
        .properties()
        .forEach(
            property -> {
              if ("#/$defs/identifier".equals(property.getValue().path("$ref").asText())) {
                identifierPointers.add("/" + property.getKey());
              }
            });
    this.schema = JsonSchemaBodyValidator.compile(document);
  }

  /** The violations of a body read by the strict reader (any JSON value); empty if valid. */
  List<Violation> violations(JsonNode body) {
    List<Error> errors = schema.validate(body);
    if (errors.isEmpty()) {
      return List.of();
    }
    Set<Violation> violations = new LinkedHashSet<>();
    for (Error error : errors) {
      String keyword = error.getKeyword();
      String pointer = error.getInstanceLocation().toString();
      if (MEMBER_KEYWORDS.contains(keyword) && error.getProperty() != null) {
        pointer = pointer + "/" + escape(error.getProperty());
      }
      violations.add(new Violation(pointer, keyword, message(pointer, keyword, error, body)));
    }
    return new ArrayList<>(violations);
  }

  /**
   * The validator's own words ("does not match the regex pattern ...") do not tell a device what to
   * send; a field with a stated rule gets that rule instead.
   */
  private String message(String pointer, String keyword, Error error, JsonNode body) {
    if (FORM_KEYWORDS.contains(keyword)) {
      if (identifierPointers.contains(pointer)) {
        return pointer.substring(1) + " must be " + Identifier.RULE;
      }
      if ("/occurredAt".equals(pointer)) {
        JsonNode value = body.path("occurredAt");
        return OccurredAt.problem(value.isTextual() ? value.asText() : null);
      }
    }
    // A member keyword's message names the member itself ("property 'foo' is not defined ..."):
    // prefixed with the object that holds it, not with the member's own pointer.
    String at =
        MEMBER_KEYWORDS.contains(keyword) ? error.getInstanceLocation().toString() : pointer;
    return at.isEmpty() ? error.getMessage() : at.substring(1) + " " + error.getMessage();
  }

  /** RFC 6901: {@code ~} as {@code ~0}, {@code /} as {@code ~1}. */
  private static String escape(String name) {
    return name.replace("~", "~0").replace("/", "~1");
  }

  private static JsonNode load() {
    try (InputStream in = RequestSchema.class.getClassLoader().getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException("schema resource missing: " + RESOURCE);
      }
      return Json.mapper().readTree(in);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
