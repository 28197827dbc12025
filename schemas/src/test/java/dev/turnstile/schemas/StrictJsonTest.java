package dev.turnstile.schemas;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.turnstile.schemas.StrictJson.MalformedJsonException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class StrictJsonTest {

  private static final StrictJson SENDERS = StrictJson.senders();

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          {"a":1,"a":2}                     | duplicate key "a"
          {"a":1} {"a":2}                   | unexpected content after the JSON value
          {"a":1}\\n{"dollars":9.99}        | unexpected content after the JSON value
          {"a":                             | unexpected end of input
          {"a":"\\uD800"}                   | unpaired UTF-16 surrogate \\uD800
          {"a":"x\\uDC00"}                  | unpaired UTF-16 surrogate \\uDC00
          {"a":1e1000000000}                | out of range
          {"a":1e-1001}                     | out of range
          {a:1}                             | a key must be a string in double quotes
          nul                               | unrecognized token
          """)
  void refusesWhatRfc7493Refuses(String json, String reason) {
    String text = json.replace("\\n", "\n");
    assertThatThrownBy(() -> SENDERS.readTree(text.getBytes(StandardCharsets.UTF_8)))
        .isInstanceOf(MalformedJsonException.class)
        .hasMessageContaining(reason);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          {"a":{"b":[DEEP]}}                | DEPTH         | /a/bZEROS
          {"a":[1,{"n":1NUMBER}]}           | NUMBER_LENGTH | /a/1/n
          {"x/y":{"n":1e1001}}              | EXPONENT      | /x~1y/n
          {"a":[1e10000000001]}             | EXPONENT      | /a/0
          {"NAME":1}                        | NAME_LENGTH   | ''
          """)
  void aWellFormedValuePastABoundNamesTheLimitAndWhere(
      String template, StrictJson.Limit limit, String pointer) {
    String json =
        template
            .replace("DEEP", "[".repeat(StrictJson.MAX_DEPTH) + "]".repeat(StrictJson.MAX_DEPTH))
            .replace("NUMBER", "0".repeat(StrictJson.MAX_NUMBER_LENGTH))
            .replace("NAME", "k".repeat(StrictJson.MAX_NAME_LENGTH + 1));
    // The container that opens level MAX_DEPTH + 1 is MAX_DEPTH members and items down.
    String where = pointer.replace("ZEROS", "/0".repeat(StrictJson.MAX_DEPTH - 2));
    assertThatThrownBy(() -> SENDERS.readTree(json.getBytes(StandardCharsets.UTF_8)))
        .isInstanceOfSatisfying(
            MalformedJsonException.class,
            e -> {
              assertThat(e.limit()).contains(limit);
              assertThat(e.pointer()).contains(where);
            });
  }

  @Test
  void bytesThatAreNotIJsonNameNoLimit() {
    for (String json :
        new String[] {"{\"a\":1,\"a\":2}", "{} {}", "{\"a\":", "{\"a\":\"\\uD800\"}"}) {
      assertThatThrownBy(() -> SENDERS.readTree(json.getBytes(StandardCharsets.UTF_8)))
          .isInstanceOfSatisfying(
              MalformedJsonException.class,
              e -> {
                assertThat(e.limit()).isEmpty();
                assertThat(e.pointer()).isEmpty();
              });
    }
  }

  @Test
  void refusesOverlongUtf8AndAByteOrderMarkThatJacksonWouldRead() {
    byte[] overlongSlash = {'{', '"', 'a', '"', ':', '"', (byte) 0xC0, (byte) 0xAF, '"', '}'};
    byte[] bom = {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF, '{', '}'};
    assertThatThrownBy(() -> SENDERS.readTree(overlongSlash))
        .isInstanceOf(MalformedJsonException.class)
        .hasMessageContaining("UTF-8");
    assertThatThrownBy(() -> SENDERS.readTree(bom))
        .isInstanceOf(MalformedJsonException.class)
        .hasMessageContaining("byte order mark");
  }

  @Test
  void refusesUtf16AndUtf32ThatJacksonWouldDetectAndRead() {
    for (java.nio.charset.Charset charset :
        new java.nio.charset.Charset[] {
          StandardCharsets.UTF_16,
          StandardCharsets.UTF_16LE,
          StandardCharsets.UTF_16BE,
          java.nio.charset.Charset.forName("UTF-32")
        }) {
      byte[] json = "{\"a\":1}".getBytes(charset);
      assertThatThrownBy(() -> SENDERS.readTree(json))
          .as(charset.name())
          .isInstanceOf(MalformedJsonException.class)
          .hasMessageContaining("UTF-8");
    }
  }

  @Test
  void refusesInvalidUtf8AndEscapedSurrogatesInNames() {
    byte[] cesuSurrogate = {
      '{', '"', 'a', '"', ':', '"', (byte) 0xED, (byte) 0xA0, (byte) 0x80, '"', '}'
    };
    byte[] truncated = {'{', '"', 'a', '"', ':', '"', (byte) 0xE2, (byte) 0x82, '"', '}'};
    assertThatThrownBy(() -> SENDERS.readTree(cesuSurrogate))
        .isInstanceOf(MalformedJsonException.class)
        .hasMessageContaining("surrogate");
    assertThatThrownBy(() -> SENDERS.readTree(truncated))
        .isInstanceOf(MalformedJsonException.class)
        .hasMessageContaining("UTF-8");
    assertThatThrownBy(() -> SENDERS.readTree("{\"\\uDC00\":1}".getBytes(StandardCharsets.UTF_8)))
        .isInstanceOf(MalformedJsonException.class)
        .hasMessageContaining("surrogate");
  }

  @Test
  void acceptsExactlyMaxDepthAndRefusesOneMore() throws Exception {
    assertThat(SENDERS.readTree(nested(StrictJson.MAX_DEPTH))).isNotNull();
    assertThatThrownBy(() -> SENDERS.readTree(nested(StrictJson.MAX_DEPTH + 1)))
        .isInstanceOf(MalformedJsonException.class)
        .hasMessageContaining("nested deeper than " + StrictJson.MAX_DEPTH + " levels");
  }

  @Test
  void aValueAcceptedFromASenderCanBeWrappedWrittenAndReadBackAsOwnRecord() throws Exception {
    JsonNode accepted = SENDERS.readTree(nested(StrictJson.MAX_DEPTH));
    JsonNode wrapped = accepted;
    for (int i = 0; i < StrictJson.ENVELOPE_DEPTH; i++) {
      ObjectNode envelope = JsonNodeFactory.instance.objectNode();
      envelope.set("w", wrapped);
      wrapped = envelope;
    }

    byte[] written = Json.mapper().writeValueAsBytes(wrapped);

    assertThat(StrictJson.ownRecords().readTree(written)).isEqualTo(wrapped);
    assertThatThrownBy(() -> SENDERS.readTree(written)).isInstanceOf(MalformedJsonException.class);
  }

  @Test
  void keepsNumbersExactAndBoundsTheirLength() throws Exception {
    JsonNode tree =
        SENDERS.readTree("{\"kwh\":7.50,\"huge\":1e400}".getBytes(StandardCharsets.UTF_8));
    assertThat(Json.mapper().writeValueAsString(tree)).isEqualTo("{\"kwh\":7.50,\"huge\":1E+400}");
    String longNumber = "1".repeat(StrictJson.MAX_NUMBER_LENGTH + 1);
    assertThatThrownBy(
            () -> SENDERS.readTree(("[" + longNumber + "]").getBytes(StandardCharsets.UTF_8)))
        .isInstanceOf(MalformedJsonException.class)
        .hasMessageContaining("a number is longer than");
  }

  @Test
  void readsContractRecordsAndSaysWhatDoesNotFit() throws Exception {
    DeviceEvent event =
        SENDERS.readValue(
            ("{\"deviceId\":\"d\",\"eventId\":\"e\",\"type\":\"Started\","
                    + "\"occurredAt\":\"2014-11-18T15:40:26-08:00\"}")
                .getBytes(StandardCharsets.UTF_8),
            DeviceEvent.class);
    assertThat(event.occurredAt().getOffset().getTotalSeconds()).isEqualTo(-8 * 3600);

    assertThatThrownBy(
            () ->
                SENDERS.readValue(
                    "{\"type\":\"Paused\"}".getBytes(StandardCharsets.UTF_8), DeviceEvent.class))
        .isInstanceOf(MalformedJsonException.class)
        .hasMessageStartingWith("not a DeviceEvent: ");
  }

  @Test
  void refusesAnEmptyBody() {
    assertThatThrownBy(() -> SENDERS.readTree(new byte[0]))
        .isInstanceOf(MalformedJsonException.class)
        .hasMessage("the body is empty");
  }

  static byte[] nested(int depth) {
    return ("{\"a\":".repeat(depth - 1) + "{}" + "}".repeat(depth - 1))
        .getBytes(StandardCharsets.UTF_8);
  }
}
