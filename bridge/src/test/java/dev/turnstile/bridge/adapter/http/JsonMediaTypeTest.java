package dev.turnstile.bridge.adapter.http;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class JsonMediaTypeTest {

  @Test
  void jsonInAnyCaseWithOrWithoutParametersIsAccepted() {
    for (String accepted :
        new String[] {
          "application/json",
          "APPLICATION/JSON",
          "Application/Json; charset=utf-8",
          "application/json;charset=UTF-8",
          "application/json; CHARSET=\"utf-8\"",
          "application/json ; foo=bar"
        }) {
      assertThat(JsonMediaType.problem(accepted)).as(accepted).isNull();
    }
  }

  @Test
  void anotherCharsetIsRefusedSayingSo() {
    assertThat(JsonMediaType.problem("application/json; charset=ISO-8859-1"))
        .contains("charset ISO-8859-1 is not supported", "UTF-8");
    assertThat(JsonMediaType.problem("application/json; charset=utf-16")).contains("utf-16");
  }

  @Test
  void otherOrMissingMediaTypesAreRefused() {
    assertThat(JsonMediaType.problem(null)).contains("application/json");
    assertThat(JsonMediaType.problem("text/plain")).contains("application/json");
    assertThat(JsonMediaType.problem("application/jsonx")).isNotNull();
  }
}
