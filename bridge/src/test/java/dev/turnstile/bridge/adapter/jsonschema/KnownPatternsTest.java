package dev.turnstile.bridge.adapter.jsonschema;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.turnstile.schemas.Json;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class KnownPatternsTest {

  private static final String REQUEST_SCHEMA =
      "dev/turnstile/schemas/device-event-request.v1.schema.json";

  /**
   * Each hand-written matcher against {@code java.util.regex} with {@code $} read as ECMA-262 reads
   * it ({@code \z}, the end of the input), on strings built from the characters the pattern names
   * and its neighbours: valid examples, each cut, extended and with one character changed, and
   * random strings.
   */
  @Test
  void everyHandWrittenMatcherAgreesWithTheRegularExpressionItReplaces() {
    Map<String, List<String>> examples =
        Map.of(
            KnownPatterns.IDENTIFIER,
            List.of("a", "station-7", "e.1", "..a", "A_b~c:d-9", "...", ".", "x".repeat(200)),
            KnownPatterns.DATE_TIME,
            List.of(
                "2014-11-18T15:40:26Z",
                "2014-11-18t15:40:26.123456789+01:00",
                "2014-11-18T15:40:26.1-08:30",
                "2014-11-18T15:40:26z",
                "2014-11-18T15:40:26.1234567890Z"));
    String alphabet = "09aAzZtT.-_~:+ \n\u00e9/";
    Random random = new Random(20261204);
    for (var example : examples.entrySet()) {
      Pattern ecma = Pattern.compile(example.getKey().replace("$", "\\z"));
      var matcher = KnownPatterns.MATCHERS.get(example.getKey());
      List<String> inputs = new ArrayList<>(List.of("", "\n"));
      for (String valid : example.getValue()) {
        inputs.add(valid);
        inputs.add(valid + "\n");
        for (int i = 0; i < valid.length(); i++) {
          inputs.add(valid.substring(0, i));
          for (char c : alphabet.toCharArray()) {
            inputs.add(valid.substring(0, i) + c + valid.substring(i + 1));
            inputs.add(valid.substring(0, i) + c + valid.substring(i));
          }
        }
      }
      for (int n = 0; n < 20_000; n++) {
        StringBuilder s = new StringBuilder();
        for (int k = random.nextInt(30); k > 0; k--) {
          s.append(alphabet.charAt(random.nextInt(alphabet.length())));
        }
        inputs.add(s.toString());
      }
      int matched = 0;
      for (String input : inputs) {
        boolean expected = ecma.matcher(input).find();
        assertThat(matcher.matches(input))
            .as("%s on %s", example.getKey(), input)
            .isEqualTo(expected);
        matched += expected ? 1 : 0;
      }
      assertThat(matched).as("some inputs match " + example.getKey()).isGreaterThan(10);
    }
  }

  @Test
  void theRequestSchemasPatternsAreAllHandWritten() throws IOException {
    JsonNode schema;
    try (InputStream in = getClass().getClassLoader().getResourceAsStream(REQUEST_SCHEMA)) {
      schema = Json.mapper().readTree(in);
    }
    List<String> patterns = schema.findValuesAsText("pattern");
    assertThat(patterns).isNotEmpty();
    assertThat(KnownPatterns.MATCHERS.keySet()).containsAll(patterns);
  }

  @Test
  void aPatternItDoesNotKnowIsMatchedAsJavaDoes() {
    var other = new KnownPatterns().getRegularExpression("^b+");
    assertThat(other.matches("bbb")).isTrue();
    assertThat(other.matches("abb")).isFalse();
  }
}
