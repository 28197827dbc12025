package dev.turnstile.contracttest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.turnstile.schemas.TopicCatalogue;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.Test;

/** The check the topology and bridge tests rely on can fail, for both halves of the contract. */
class ContractCheckingDeserializerTest {

  private static final byte[] OPENED =
      """
      {"type":"Opened","deviceId":"582873","sessionId":"0b8e5c1e-3f5d-3c8a-9a4e-2d7f1b6c9e10",
       "startedAt":"2014-11-18T15:40:26-08:00","startEventId":"s"}"""
          .getBytes(StandardCharsets.UTF_8);

  private final ContractCheckingDeserializer check =
      new ContractCheckingDeserializer(TopicCatalogue.DEVICE_SESSIONS);

  private static RecordHeaders headers(boolean withType) {
    RecordHeaders headers = new RecordHeaders();
    add(headers, "ce_specversion", "1.0");
    add(headers, "ce_id", "0b8e5c1e/opened");
    add(headers, "ce_source", "/turnstile/topology");
    if (withType) {
      add(headers, "ce_type", "dev.turnstile.device-session.opened.v1");
    }
    add(headers, "ce_time", "2026-11-30T08:00:00Z");
    add(
        headers,
        "ce_dataschema",
        "https://turnstile.dev/schemas/device-session-event.v1.schema.json");
    add(headers, "content-type", "application/json");
    return headers;
  }

  private static void add(RecordHeaders headers, String name, String value) {
    headers.add(name, value.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void aValidCloudEventPasses() {
    assertThat(check.deserialize("device-sessions.v1", headers(true), OPENED)).isEqualTo(OPENED);
  }

  @Test
  void aRecordWithoutCeTypeFails() {
    assertThatThrownBy(() -> check.deserialize("device-sessions.v1", headers(false), OPENED))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("CloudEventDeserializer");
  }

  @Test
  void aValueThatBreaksTheSchemaFails() {
    byte[] noDevice = "{\"type\":\"Opened\"}".getBytes(StandardCharsets.UTF_8);
    assertThatThrownBy(() -> check.deserialize("device-sessions.v1", headers(true), noDevice))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("device-session-event.v1");
  }
}
