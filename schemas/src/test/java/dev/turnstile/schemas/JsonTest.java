package dev.turnstile.schemas;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

class JsonTest {

  @Test
  void numbersKeepTheirValueAndTheirDigitsThroughARoundTrip() throws Exception {
    JsonNode tree = Json.mapper().readTree("{\"kwh\":7.50,\"huge\":1e400,\"count\":3}");

    String written = Json.mapper().writeValueAsString(tree);

    assertThat(written).isEqualTo("{\"kwh\":7.50,\"huge\":1E+400,\"count\":3}");
    assertThat(tree.get("kwh").decimalValue()).isEqualByComparingTo("7.5");
  }

  @Test
  void offsetsOfTimestampsAreKept() throws Exception {
    DeviceEvent event =
        Json.mapper()
            .readValue(
                "{\"deviceId\":\"d\",\"eventId\":\"e\",\"type\":\"Started\","
                    + "\"occurredAt\":\"2014-11-18T15:40:26-08:00\"}",
                DeviceEvent.class);

    assertThat(Json.mapper().writeValueAsString(event))
        .contains("\"occurredAt\":\"2014-11-18T15:40:26-08:00\"");
  }
}
