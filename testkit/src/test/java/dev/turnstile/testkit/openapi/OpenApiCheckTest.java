package dev.turnstile.testkit.openapi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The check passes answers its document describes and fails each kind of answer it does not; and a
 * document that is not valid OpenAPI 3.1, or whose reference does not resolve, does not load.
 */
class OpenApiCheckTest {

  private static final String FOLDER = "openapi-check/";
  private static final String BASE = "https://example.test/schemas/";
  private static final Map<String, List<String>> JSON =
      Map.of("Content-Type", List.of("application/json"));
  private static final Map<String, List<String>> PROBLEM =
      Map.of("content-type", List.of("application/problem+json"));

  private static OpenApiCheck check;

  @BeforeAll
  static void load() {
    check = OpenApiCheck.load(FOLDER, BASE, "things.openapi.yaml");
  }

  @AfterAll
  static void close() {
    check.close();
  }

  @Test
  void listsTheOperations() {
    assertThat(check.operations()).containsExactly("GET /metrics", "GET /things/{id}");
  }

  @Test
  void passesWhatTheDocumentDescribes() {
    assertThatCode(
            () -> {
              check.check("GET", "/things/a", 200, JSON, bytes("{\"name\":\"a\"}"));
              check.check(
                  "GET",
                  "/things/a",
                  429,
                  Map.of(
                      "content-type",
                      List.of("application/problem+json"),
                      "Retry-After",
                      List.of("3")),
                  bytes("{\"status\":429}"));
              check.check(
                  "GET",
                  "/metrics",
                  200,
                  Map.of("Content-Type", List.of("text/plain; version=0.0.4; charset=utf-8")),
                  bytes("# HELP x a thing\n# TYPE x counter\nx 1\n"));
              check.check("GET", "/nowhere", 404, PROBLEM, bytes("{\"status\":404}"));
            })
        .doesNotThrowAnyException();
  }

  @Test
  void failsABodyThatBreaksTheReferencedSchema() {
    assertThatThrownBy(() -> check.check("GET", "/things/a", 200, JSON, bytes("{\"name\":\"\"}")))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("getThing");
    assertThatThrownBy(
            () -> check.check("GET", "/things/a", 200, JSON, bytes("{\"name\":\"a\",\"x\":1}")))
        .isInstanceOf(AssertionError.class);
  }

  @Test
  void failsAMissingOrWrongHeader() {
    assertThatThrownBy(
            () -> check.check("GET", "/things/a", 429, PROBLEM, bytes("{\"status\":429}")))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("Retry-After");
    assertThatThrownBy(
            () ->
                check.check(
                    "GET",
                    "/things/a",
                    429,
                    Map.of(
                        "content-type",
                        List.of("application/problem+json"),
                        "retry-after",
                        List.of("soon")),
                    bytes("{\"status\":429}")))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("Retry-After");
  }

  @Test
  void failsAStatusOrMediaTypeTheOperationDoesNotList() {
    assertThatThrownBy(() -> check.check("GET", "/things/a", 500, JSON, bytes("{}")))
        .isInstanceOf(AssertionError.class);
    assertThatThrownBy(
            () ->
                check.check(
                    "GET",
                    "/things/a",
                    200,
                    Map.of("Content-Type", List.of("text/html")),
                    bytes("<p>")))
        .isInstanceOf(AssertionError.class);
    assertThatThrownBy(
            () ->
                check.check(
                    "GET",
                    "/metrics",
                    200,
                    Map.of("Content-Type", List.of("text/plain; version=0.0.4; charset=utf-8")),
                    bytes("no exposition here")))
        .isInstanceOf(AssertionError.class);
  }

  @Test
  void failsAnAnswerNoOperationDescribes() {
    assertThatThrownBy(() -> check.check("POST", "/things/a", 200, JSON, bytes("{\"name\":\"a\"}")))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("no operation");
    assertThatThrownBy(
            () -> check.check("GET", "/nowhere", 404, PROBLEM, bytes("{\"status\":400}")))
        .isInstanceOf(AssertionError.class);
  }

  @Test
  void refusesAnInvalidDocumentOrAReferenceThatDoesNotResolve() {
    assertThatThrownBy(() -> OpenApiCheck.load(FOLDER, BASE, "invalid.openapi.yaml"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("not a valid OpenAPI 3.1 document");
    assertThatThrownBy(() -> OpenApiCheck.load(FOLDER, BASE, "broken-ref.openapi.yaml"))
        .isInstanceOf(IllegalStateException.class);
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
