package dev.turnstile.bridge.adapter.http;

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

/** The request body's JSON Schema (2020-12), from the contracts module. */
final class RequestSchema {

  static final String RESOURCE = "dev/turnstile/schemas/device-event-request.v1.schema.json";

  private final Validator validator;

  RequestSchema() {
    JsonObject schema = load();
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
      violations.add(
          new Violation(
              pointer(unit.getInstanceLocation()),
              keyword(unit.getKeywordLocation()),
              unit.getError()));
    }
    return new ArrayList<>(violations);
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
