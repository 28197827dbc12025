package dev.turnstile.bridge.adapter.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.turnstile.schemas.ApiDocument;
import dev.turnstile.testkit.openapi.OpenApiCheck;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Each process's OpenAPI document is valid OpenAPI 3.1 as vertx-openapi reads it, with every
 * reference to a JSON Schema beside it resolved. Here rather than in {@code schemas}, whose tests
 * stay off the testkit. The bridge's answers are checked against its document by {@link
 * OpenApiContractIT}, the topology's against its document by {@code TopologyQueriesIT}.
 */
class ApiDocumentsTest {

  @ParameterizedTest
  @EnumSource(ApiDocument.class)
  void isValidOpenApi31WithEveryReferenceResolved(ApiDocument document) {
    try (OpenApiCheck check =
        OpenApiCheck.load(
            "dev/turnstile/schemas/", "https://turnstile.dev/schemas/", document.fileName())) {
      assertThat(check.operations())
          .contains("GET /health/live", "GET /health/ready", "GET /metrics", "GET /openapi/{file}");
    }
  }
}
