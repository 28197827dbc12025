package dev.turnstile.bridge.adapter.jsonschema;

import com.fasterxml.jackson.databind.JsonNode;
import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SchemaRegistryConfig;
import com.networknt.schema.SpecificationVersion;
import com.networknt.schema.path.PathType;
import dev.turnstile.bridge.port.out.BodyValidator;
import dev.turnstile.schemas.Json;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * A body must satisfy a JSON Schema (2020-12, {@code format} asserted) loaded from the classpath or
 * a file, checked with networknt's json-schema-validator, the bridge's one JSON Schema validator.
 * The body is the tree {@link dev.turnstile.schemas.StrictJson} read, never bytes a lenient parser
 * reads again.
 */
public final class JsonSchemaBodyValidator implements BodyValidator {

  private final Schema schema;

  private JsonSchemaBodyValidator(Schema schema) {
    this.schema = schema;
  }

  /**
   * @param location a classpath resource, else a file path
   * @throws IllegalArgumentException if neither exists or it is not a JSON object
   */
  public static JsonSchemaBodyValidator load(String location) {
    String text;
    try (InputStream in =
        JsonSchemaBodyValidator.class.getClassLoader().getResourceAsStream(location)) {
      text =
          in != null
              ? new String(in.readAllBytes(), StandardCharsets.UTF_8)
              : Files.readString(Path.of(location));
    } catch (IOException e) {
      throw new IllegalArgumentException("cannot read JSON Schema " + location + ": " + e, e);
    }
    JsonNode document;
    try {
      document = Json.mapper().readTree(text);
    } catch (IOException e) {
      throw new IllegalArgumentException("JSON Schema " + location + " is not JSON", e);
    }
    if (document == null || !document.isObject()) {
      throw new IllegalArgumentException("JSON Schema " + location + " is not a JSON object");
    }
    return new JsonSchemaBodyValidator(compile(document));
  }

  /** Compiles a schema document (2020-12 unless it names another dialect in {@code $schema}). */
  public static Schema compile(JsonNode document) {
    SchemaRegistryConfig config =
        SchemaRegistryConfig.builder()
            .formatAssertionsEnabled(true)
            .pathType(PathType.JSON_POINTER)
            .locale(Locale.ENGLISH)
            .regularExpressionFactory(new KnownPatterns())
            .build();
    return SchemaRegistry.withDefaultDialect(
            SpecificationVersion.DRAFT_2020_12, registry -> registry.schemaRegistryConfig(config))
        .getSchema(document);
  }

  /** Validates a body already read by {@link dev.turnstile.schemas.StrictJson#senders()}. */
  @Override
  public Optional<String> violation(JsonNode body) {
    List<Error> errors = schema.validate(body);
    if (errors.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(
        errors.stream()
            .map(
                error ->
                    error.getInstanceLocation()
                        + (error.getProperty() == null ? "" : "/" + error.getProperty())
                        + ": "
                        + error.getMessage())
            .collect(Collectors.joining("; ")));
  }
}
