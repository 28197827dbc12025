package dev.turnstile.bridge.adapter.jsonschema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.turnstile.schemas.StrictJson;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JsonSchemaBodyValidatorTest {

  @TempDir Path dir;

  @Test
  void bodiesAreCheckedAgainstASchemaFile() throws Exception {
    Path schema = dir.resolve("billing.schema.json");
    Files.writeString(
        schema,
        "{\"$schema\":\"https://json-schema.org/draft/2020-12/schema\",\"type\":\"object\","
            + "\"required\":[\"kWh\"],\"properties\":{\"kWh\":{\"type\":\"number\"}}}");
    JsonSchemaBodyValidator validator = JsonSchemaBodyValidator.load(schema.toString());

    assertThat(validator.violation(bytes("{\"kWh\":7.5}"))).isEmpty();
    assertThat(validator.violation(bytes("{\"kWh\":\"lots\"}"))).get().asString().contains("/kWh");
    assertThat(validator.violation(bytes("{}"))).isPresent();
    assertThat(validator.violation(bytes("{\"kWh\":1e400}"))).isEmpty();
  }

  @Test
  void aMissingSchemaFailsAtStartUp() {
    assertThatThrownBy(() -> JsonSchemaBodyValidator.load(dir.resolve("none.json").toString()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("none.json");
  }

  private static JsonNode bytes(String text) throws StrictJson.MalformedJsonException {
    return StrictJson.senders().readTree(text.getBytes(StandardCharsets.UTF_8));
  }
}
