package dev.turnstile.schemas;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.turnstile.schemas.StrictJson.MalformedJsonException;
import java.math.BigDecimal;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.OffsetDateTime;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
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

  /**
   * Reading a record in one pass ({@link StrictJson#readValue}) gives what the two-pass read gives
   * (a tree checked, then bound): the same value, or the same refusal. Members are drawn from a
   * pool of well-formed and hostile values, in known and unknown members, so a value the one-pass
   * read would skip unchecked, bind differently or accept where the tree is refused shows here.
   */
  @Property(tries = 5000)
  void oneReadOfARecordAgreesWithTheTwoPassRead(@ForAll("probes") String text) throws Exception {
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    String expected;
    try {
      expected = outcome(StrictJson.ownRecords().treeToValue(readTree(bytes), Probe.class));
    } catch (MalformedJsonException refused) {
      expected = "refused: " + refused.getMessage();
    }
    String actual;
    try {
      actual = outcome(StrictJson.ownRecords().readValue(bytes, Probe.class));
    } catch (MalformedJsonException refused) {
      actual = "refused: " + refused.getMessage();
    }
    assertThat(actual).isEqualTo(expected);
  }

  /**
   * Found by the property above: a number in a text member read as its token's text ("-0") in one
   * pass, as its value's text ("0") from the tree.
   */
  @Example
  void aNumberInATextMemberReadsAsTheTwoPassReadReadsIt() throws Exception {
    for (String text :
        List.of(
            "{\"name\":-0,\"count\":1}",
            "{\"name\":1e400,\"count\":1}",
            "{\"name\":1.50,\"count\":1}",
            "{\"link\":1e2,\"count\":1}",
            "{\"link\":-0,\"count\":1}")) {
      oneReadOfARecordAgreesWithTheTwoPassRead(text);
    }
    assertThat(
            StrictJson.ownRecords()
                .readValue(
                    "{\"name\":-0,\"count\":1}".getBytes(StandardCharsets.UTF_8), Probe.class)
                .name())
        .isEqualTo("0");
  }

  private static JsonNode readTree(byte[] bytes) throws MalformedJsonException {
    return StrictJson.ownRecords().readTree(bytes);
  }

  /** A value as text that shows every difference: a decimal's scale, a node's kind, a null. */
  private static String outcome(Probe probe) throws Exception {
    return probe == null ? "null" : probe + " " + Json.mapper().writeValueAsString(probe);
  }

  /** A contract-like record: text, integers, exact decimals, a time, a tree and a list. */
  record Probe(
      String name,
      long count,
      BigDecimal amount,
      OffsetDateTime at,
      JsonNode body,
      List<String> tags,
      URI link) {}

  @Provide
  Arbitrary<String> probes() {
    Arbitrary<String> values =
        Arbitraries.of(
            "\"a\"",
            "\"\\uD800\"",
            "\"\\uD83D\\uDE00\"",
            "1",
            "-0",
            "12345678901234567890123",
            "1.50",
            "1e400",
            "1e1001",
            "1e-1001",
            "1.0",
            "true",
            "null",
            "\"2024-01-01T00:00:00+02:00\"",
            "\"yesterday\"",
            "[]",
            "[\"x\",\"\\uDC00\"]",
            "[1,1e2000]",
            "{\"k\":{\"k\":\"\\uD800\"}}",
            "{\"k\":1,\"k\":2}",
            "{\"\\uDC00\":1}",
            "{\"k\":[1.50,\"v\"]}");
    Arbitrary<String> names =
        Arbitraries.of("name", "count", "amount", "at", "body", "tags", "link", "other", "\\uD800");
    Arbitrary<String> member =
        Combinators.combine(names, values).as((n, v) -> "\"" + n + "\":" + v);
    Arbitrary<String> object = member.list().ofMaxSize(7).map(m -> "{" + String.join(",", m) + "}");
    return Combinators.combine(object, Arbitraries.of("", "", "", " ", "}", "{}", "x"))
        .as((o, tail) -> o + tail);
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
