package dev.turnstile.bridge.adapter.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.turnstile.schemas.Json;
import dev.turnstile.schemas.StrictJson.MalformedJsonException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class RequestJsonTest {

  private static JsonNode read(String json) throws MalformedJsonException {
    return RequestJson.read(json.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void aDuplicatedKeyIsMalformedAndNamed() {
    assertThatThrownBy(
            () -> read("{\"eventId\":\"a2\",\"type\":\"Started\",\"type\":\"Finished\"}"))
        .isInstanceOf(MalformedJsonException.class)
        .hasMessageStartingWith("duplicate key \"type\" at line 1, column");
    assertThatThrownBy(() -> read("{\"attributes\":{\"n\":1,\"n\":2}}"))
        .hasMessageStartingWith("duplicate key \"n\"");
  }

  @Test
  void numbersStayExactlyAsSent() throws Exception {
    JsonNode body =
        read("{\"attributes\":{\"big\":1e400,\"price\":7.50,\"id\":12345678901234567890}}");

    String written = Json.mapper().writeValueAsString(body.get("attributes"));

    assertThat(written).isEqualTo("{\"big\":1E+400,\"price\":7.50,\"id\":12345678901234567890}");
    assertThat(written).doesNotContain("Infinity");
  }

  @Test
  void malformedDetailsGiveAPlaceAndAShortReasonWithoutParserInternals() {
    assertThatThrownBy(() -> read("{\"eventId\":\"a\",\"type\":\"Started\""))
        .hasMessage("unexpected end of input at line 1, column 32");
    assertThatThrownBy(() -> read("{\"eventId\":}"))
        .hasMessageStartingWith("unexpected character '}'");
    assertThatThrownBy(() -> read("not json")).hasMessageStartingWith("unrecognized token 'not'");
    assertThatThrownBy(() -> read("{} {}")).hasMessageStartingWith("unexpected content after");
    for (String bad : new String[] {"{\"a\":", "{\"a\":}", "nope", "{} []", "{a:1}", "[1,]"}) {
      assertThatThrownBy(() -> read(bad))
          .as(bad)
          .message()
          .doesNotContain("Source", "jackson", "REDACTED", "(code", "\n")
          .contains("at line 1, column");
    }
  }
}
