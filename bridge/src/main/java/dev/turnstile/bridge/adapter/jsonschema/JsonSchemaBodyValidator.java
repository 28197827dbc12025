package dev.turnstile.bridge.adapter.jsonschema;

import com.fasterxml.jackson.databind.JsonNode;
import dev.turnstile.bridge.application.BodyValidator;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import io.vertx.json.schema.Draft;
import io.vertx.json.schema.JsonSchema;
import io.vertx.json.schema.JsonSchemaOptions;
import io.vertx.json.schema.OutputFormat;
import io.vertx.json.schema.OutputUnit;
import io.vertx.json.schema.Validator;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * A body must satisfy a JSON Schema (2020-12) loaded from the classpath or a file. The body is the
 * tree {@link dev.turnstile.schemas.StrictJson} read, never bytes a lenient parser reads again.
 */
public final class JsonSchemaBodyValidator implements BodyValidator {

  private final Validator validator;

  private JsonSchemaBodyValidator(JsonObject schema, String location) {
    this.validator =
        Validator.create(
            JsonSchema.of(schema),
            new JsonSchemaOptions()
                .setDraft(Draft.DRAFT202012)
                .setBaseUri(schema.getString("$id", "urn:turnstile:" + location))
                .setOutputFormat(OutputFormat.Basic));
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
    try {
      return new JsonSchemaBodyValidator(new JsonObject(text), location);
    } catch (DecodeException e) {
      throw new IllegalArgumentException("JSON Schema " + location + " is not a JSON object", e);
    }
  }

  /** Validates a body already read by {@link dev.turnstile.schemas.StrictJson#senders()}. */
  @Override
  public Optional<String> violation(JsonNode body) {
    Object value = VertxJson.of(body);
    OutputUnit result = validator.validate(value);
    if (Boolean.TRUE.equals(result.getValid())) {
      return Optional.empty();
    }
    List<OutputUnit> errors = result.getErrors() == null ? List.of(result) : result.getErrors();
    return Optional.of(
        errors.stream()
            .map(unit -> unit.getInstanceLocation() + ": " + unit.getError())
            .collect(Collectors.joining("; ")));
  }
}
