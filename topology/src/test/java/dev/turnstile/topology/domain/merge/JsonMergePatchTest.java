package dev.turnstile.topology.domain.merge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.turnstile.schemas.Json;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class JsonMergePatchTest {

  /** RFC 7396 Appendix A, all 15 rows, in the RFC's order. */
  @ParameterizedTest(name = "A.{index}: {0} + {1} = {2}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          {"a":"b"}                     | {"a":"c"}                   | {"a":"c"}
          {"a":"b"}                     | {"b":"c"}                   | {"a":"b","b":"c"}
          {"a":"b"}                     | {"a":null}                  | {}
          {"a":"b","b":"c"}             | {"a":null}                  | {"b":"c"}
          {"a":["b"]}                   | {"a":"c"}                   | {"a":"c"}
          {"a":"c"}                     | {"a":["b"]}                 | {"a":["b"]}
          {"a":{"b":"c"}}               | {"a":{"b":"d","c":null}}    | {"a":{"b":"d"}}
          {"a":[{"b":"c"}]}             | {"a":[1]}                   | {"a":[1]}
          ["a","b"]                     | ["c","d"]                   | ["c","d"]
          {"a":"b"}                     | ["c"]                       | ["c"]
          {"a":"foo"}                   | null                        | null
          {"a":"foo"}                   | "bar"                       | "bar"
          {"e":null}                    | {"a":1}                     | {"e":null,"a":1}
          [1,2]                         | {"a":"b","c":null}          | {"a":"b"}
          {}                            | {"a":{"bb":{"ccc":null}}}   | {"a":{"bb":{}}}
          """)
  void appendixA(String target, String patch, String expected) {
    assertThat(JsonMergePatch.apply(json(target), json(patch))).isEqualTo(json(expected));
  }

  /** RFC 7396 section 3, the worked example. */
  @Test
  void section3Example() {
    JsonNode target =
        json(
            """
            {"title":"Goodbye!","author":{"givenName":"John","familyName":"Doe"},
             "tags":["example","sample"],"content":"This will be unchanged"}
            """);
    JsonNode patch =
        json(
            """
            {"title":"Hello!","phoneNumber":"+01-123-456-7890","author":{"familyName":null},
             "tags":["example"]}
            """);

    assertThat(JsonMergePatch.apply(target, patch))
        .isEqualTo(
            json(
                """
                {"title":"Hello!","author":{"givenName":"John"},"tags":["example"],
                 "content":"This will be unchanged","phoneNumber":"+01-123-456-7890"}
                """));
  }

  @Test
  void neverMutatesItsInputsNorSharesNodesWithThem() {
    JsonNode target = json("{\"a\":{\"b\":1,\"c\":[1]},\"d\":2}");
    JsonNode patch = json("{\"a\":{\"b\":null,\"e\":{\"f\":1}},\"g\":[3]}");
    JsonNode targetBefore = target.deepCopy();
    JsonNode patchBefore = patch.deepCopy();

    JsonNode result = JsonMergePatch.apply(target, patch);
    ((ObjectNode) result.get("a")).put("c", "changed");
    ((ArrayNode) result.get("g")).add(4);

    assertThat(target).isEqualTo(targetBefore);
    assertThat(patch).isEqualTo(patchBefore);
  }

  @Test
  void noTargetBehavesLikeANonObjectTarget() {
    assertThat(JsonMergePatch.apply(null, json("{\"a\":{\"b\":null,\"c\":1}}")))
        .isEqualTo(json("{\"a\":{\"c\":1}}"));
    assertThatNullPointerException().isThrownBy(() -> JsonMergePatch.apply(json("{}"), null));
  }

  static JsonNode json(String text) {
    try {
      return Json.mapper().readTree(text);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException(text, e);
    }
  }
}
