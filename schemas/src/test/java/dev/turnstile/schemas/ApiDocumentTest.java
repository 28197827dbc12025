package dev.turnstile.schemas;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What a process serves under /openapi/: its own document and the JSON Schemas, nothing else; and
 * every file a document references is one of those. (That each document is valid OpenAPI 3.1 is
 * checked with the validator library in the bridge's tests: this module's tests stay off the
 * testkit, see SchemasArtifactIT.)
 */
class ApiDocumentTest {

  private static final Pattern FILE_REF = Pattern.compile("\\$ref: '([^'#]+)(#[^']*)?'");

  @ParameterizedTest
  @EnumSource(ApiDocument.class)
  void servesItsOwnDocumentAsYaml(ApiDocument document) {
    assertThat(document.file(document.fileName()))
        .hasValueSatisfying(
            file -> {
              assertThat(file.contentType()).isEqualTo("application/yaml");
              assertThat(new String(file.bytes(), StandardCharsets.UTF_8))
                  .startsWith("openapi: 3.1.");
            });
    assertThat(document.path()).isEqualTo("/openapi/" + document.fileName());
  }

  @ParameterizedTest
  @EnumSource(ApiDocument.class)
  void servesEveryFileItsDocumentReferences(ApiDocument document) {
    Matcher refs = FILE_REF.matcher(document.text());
    int found = 0;
    while (refs.find()) {
      found++;
      String name = refs.group(1);
      assertThat(document.file(name))
          .as("%s references %s", document.fileName(), name)
          .hasValueSatisfying(
              file -> assertThat(file.contentType()).isEqualTo("application/schema+json"));
    }
    assertThat(found).as("references in %s", document.fileName()).isPositive();
  }

  @Test
  void doesNotServeTheOtherProcesssDocument() {
    assertThat(ApiDocument.BRIDGE.file(ApiDocument.TOPOLOGY.fileName())).isEmpty();
    assertThat(ApiDocument.TOPOLOGY.file(ApiDocument.BRIDGE.fileName())).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "",
        "nope.v1.schema.json",
        "released/v1/problem.v1.schema.json",
        "..%2Fproblem.v1.schema.json",
        "../problem.v1.schema.json",
        "ApiDocument.class",
        "Problem.v1.schema.json"
      })
  void servesNothingElse(String name) {
    assertThat(ApiDocument.BRIDGE.file(name)).isEmpty();
  }
}
