package dev.turnstile.schemas;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.turnstile.schemas.StrictJson.MalformedJsonException;
import java.nio.charset.StandardCharsets;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Whatever the bytes, the strict reader answers with a tree or a {@link MalformedJsonException},
 * never another exception; and what it accepts can be written and read again unchanged.
 */
class StrictJsonProperties {

  @Property(tries = 2000)
  void anyBytesGiveATreeOrAMalformedJsonException(@ForAll("hostileBytes") byte[] bytes)
      throws Exception {
    JsonNode tree;
    try {
      tree = StrictJson.senders().readTree(bytes);
    } catch (MalformedJsonException refused) {
      assertThat(refused.getMessage()).isNotBlank();
      return;
    }
    byte[] written = Json.mapper().writeValueAsBytes(tree);
    assertThat(StrictJson.senders().readTree(written)).isEqualTo(tree);
  }

  @Provide
  Arbitrary<byte[]> hostileBytes() {
    Arbitrary<String> fragments =
        Arbitraries.of(
            "{",
            "}",
            "[",
            "]",
            ",",
            ":",
            "\"",
            "\"a\"",
            "\"a\":",
            "1",
            "-0",
            "1e400",
            "1e1000000000",
            "1.50",
            "null",
            "true",
            "\\u0000",
            "\\uD800",
            "\\uDC00",
            "\\\"",
            " ",
            "\n",
            "\"\\uD83D\\uDE00\"",
            "é",
            "\u00ff",
            "{\"a\":1,\"a\":2}",
            "9".repeat(120),
            "{\"a\":".repeat(70));
    Arbitrary<String> text = fragments.list().ofMaxSize(40).map(parts -> String.join("", parts));
    Arbitrary<byte[]> fromText = text.map(s -> s.getBytes(StandardCharsets.UTF_8));
    Arbitrary<byte[]> raw = Arbitraries.bytes().array(byte[].class).ofMaxSize(64);
    return Arbitraries.oneOf(fromText, raw);
  }
}
