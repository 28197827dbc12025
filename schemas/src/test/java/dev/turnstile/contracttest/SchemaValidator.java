package dev.turnstile.contracttest;

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
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

/**
 * Validates JSON against Turnstile's schemas with vertx-json-schema (draft 2020-12), for tests. The
 * bridge validates in production with networknt's validator, {@code format} asserted (issue 14
 * moved it for speed); the schemas keep their rules in {@code pattern}s where both validators
 * agree, and {@code DeviceEventRulesAgreementTest} checks those against the Java rules.
 *
 * <p>Lives in the schemas test-jar, not in schemas main, so the contracts jar downstream teams
 * depend on stays Jackson-only (no Vert.x on their classpath).
 */
public final class SchemaValidator {

  private static final Map<String, Validator> VALIDATORS = new ConcurrentHashMap<>();

  private SchemaValidator() {}

  /**
   * Fails with every error (JSON pointer, keyword, message) when {@code json} breaks the schema.
   *
   * @param schemaResource classpath resource, as {@code Topic.valueSchema()} names it
   */
  public static void assertValid(String schemaResource, byte[] json) {
    String errors = errors(schemaResource, json);
    if (!errors.isEmpty()) {
      throw new AssertionError(
          "%s breaks %s:%n%s%n%s"
              .formatted(
                  new String(json, StandardCharsets.UTF_8), schemaResource, errors, "(end)"));
    }
  }

  /** The errors, one per line, or {@code ""} when valid. */
  public static String errors(String schemaResource, byte[] json) {
    Object instance = io.vertx.core.json.Json.decodeValue(Buffer.buffer(json));
    OutputUnit result =
        VALIDATORS.computeIfAbsent(schemaResource, SchemaValidator::load).validate(instance);
    if (Boolean.TRUE.equals(result.getValid())) {
      return "";
    }
    if (result.getErrors() == null || result.getErrors().isEmpty()) {
      return "  " + result.getInstanceLocation() + " " + result.getError();
    }
    return result.getErrors().stream()
        .map(
            e ->
                "  %s [%s] %s"
                    .formatted(e.getInstanceLocation(), e.getKeywordLocation(), e.getError()))
        .collect(Collectors.joining(System.lineSeparator()));
  }

  private static Validator load(String resource) {
    try (InputStream in = SchemaValidator.class.getClassLoader().getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalArgumentException("no schema on the classpath: " + resource);
      }
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
}
