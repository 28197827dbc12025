package dev.turnstile.bridge.port.in;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.turnstile.bridge.port.in.AcceptDeviceEventUseCase.AcceptDeviceEventCommand;
import dev.turnstile.bridge.port.in.AcceptDeviceEventUseCase.Read;
import dev.turnstile.schemas.DeviceEventType;
import dev.turnstile.schemas.Identifier;
import dev.turnstile.schemas.Json;
import dev.turnstile.schemas.OccurredAt;
import dev.turnstile.schemas.Violation;
import java.time.OffsetDateTime;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The command is the one place a device's JSON becomes typed values: what it refuses here no later
 * layer checks again, so every rule it owns has a test here.
 */
class AcceptDeviceEventCommandTest {

  private static final OffsetDateTime AT = OffsetDateTime.parse("2014-11-18T15:40:26+01:00");

  private static JsonNode json(String text) throws Exception {
    return Json.mapper().readTree(text);
  }

  private static Read read(String deviceId, String body) throws Exception {
    return AcceptDeviceEventCommand.read(deviceId, json(body), null);
  }

  @Test
  void aValidEventBecomesTypedValuesWithItsOffsetKept() throws Exception {
    Read read =
        read(
            "station-7",
            "{\"eventId\":\"e-1\",\"type\":\"Finished\",\"occurredAt\":\"2014-11-18T15:40:26+01:00\","
                + "\"sessionRef\":\"s-1\",\"attributes\":{\"kWh\":7.5}}");

    assertThat(read.violations()).isEmpty();
    AcceptDeviceEventCommand command = read.command();
    assertThat(command.deviceId()).isEqualTo("station-7");
    assertThat(command.eventId()).isEqualTo("e-1");
    assertThat(command.type()).isEqualTo(DeviceEventType.Finished);
    assertThat(command.occurredAt()).isEqualTo(AT);
    assertThat(command.occurredAt().getOffset().getTotalSeconds()).isEqualTo(3600);
    assertThat(command.sessionRef()).isEqualTo("s-1");
    assertThat(command.attributes().path("kWh").asText()).isEqualTo("7.5");
    assertThat(command.sender()).isNull();
  }

  @Test
  void optionalFieldsMayBeAbsentOrNull() throws Exception {
    Read read =
        read(
            "d",
            "{\"eventId\":\"e\",\"type\":\"Started\",\"occurredAt\":\"2014-11-18T15:40:26Z\","
                + "\"sessionRef\":null}");

    assertThat(read.command().sessionRef()).isNull();
    assertThat(read.command().attributes()).isNull();
  }

  @Test
  void aTimestampWithoutOffsetIsRefused() throws Exception {
    Read read =
        read(
            "d", "{\"eventId\":\"e\",\"type\":\"Started\",\"occurredAt\":\"2014-11-18T15:40:26\"}");

    assertThat(read.command()).isNull();
    assertThat(read.violations())
        .extracting(v -> v.pointer() + " " + v.keyword())
        .containsExactly("/occurredAt format");
    assertThat(OccurredAt.problem("2014-11-18T15:40:26"))
        .contains("RFC 3339 date-time with an offset, e.g. 2015-03-02T08:00:00-08:00");
  }

  /**
   * The request schema's {@code date-time} takes a leap second (RFC 3339 allows it) where java.time
   * cannot hold one: this is the check that stays after the schema, and the one a request that
   * passed the schema can still fail.
   */
  @Test
  void aLeapSecondIsRefusedSayingWhy() throws Exception {
    Read read =
        read(
            "d",
            "{\"eventId\":\"e\",\"type\":\"Started\",\"occurredAt\":\"2016-12-31T23:59:60Z\"}");

    assertThat(read.command()).isNull();
    assertThat(read.violations())
        .singleElement()
        .satisfies(
            v -> {
              assertThat(v.pointer()).isEqualTo("/occurredAt");
              assertThat(v.keyword()).isEqualTo("format");
              assertThat(v.message()).contains("leap second");
            });
  }

  @Test
  void badIdentifiersAndTypeAreAllReported() throws Exception {
    Read read =
        read(
            "bad device",
            "{\"eventId\":\"\",\"type\":\"Paused\",\"occurredAt\":\"2014-11-18T15:40:26Z\"}");

    assertThat(read.command()).isNull();
    assertThat(read.violations())
        .extracting(Violation::pointer)
        .containsExactly("", "/eventId", "/type");
  }

  @Test
  void identifiersMadeOnlyOfDotsAreRefusedForEveryIdentifier() throws Exception {
    for (String dots : List.of(".", "..", "...")) {
      Read read =
          read(
              dots,
              "{\"eventId\":\""
                  + dots
                  + "\",\"type\":\"Started\",\"occurredAt\":\"2014-11-18T15:40:26Z\",\"sessionRef\":\""
                  + dots
                  + "\"}");

      assertThat(read.violations())
          .as(dots)
          .extracting(Violation::pointer)
          .containsExactly("", "/eventId", "/sessionRef");
      assertThat(read.violations())
          .allSatisfy(v -> assertThat(v.message()).contains("not only dots"));
    }
    assertThat(Identifier.isValid("a.b")).isTrue();
    assertThat(Identifier.isValid(".a")).isTrue();
    assertThat(Identifier.isValid("..a..")).isTrue();
  }

  @Test
  void attributesThatAreNotAnObjectAreRefused() throws Exception {
    Read read =
        read(
            "d",
            "{\"eventId\":\"e\",\"type\":\"Started\",\"occurredAt\":\"2014-11-18T15:40:26Z\","
                + "\"attributes\":[1]}");

    assertThat(read.violations())
        .extracting(v -> v.pointer() + " " + v.keyword())
        .containsExactly("/attributes type");
  }

  /** Built by hand (a harness, a test), the command still refuses what breaks an event's rules. */
  @Test
  void noInvalidCommandCanBeBuilt() {
    assertThatThrownBy(
            () ->
                new AcceptDeviceEventCommand(
                    "bad device", "e", DeviceEventType.Started, AT, null, null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("deviceId");
    assertThatThrownBy(
            () -> new AcceptDeviceEventCommand("d", "..", DeviceEventType.Started, AT, null, null))
        .hasMessageContaining("eventId");
    assertThatThrownBy(
            () -> new AcceptDeviceEventCommand("d", "e", DeviceEventType.Started, AT, "", null))
        .hasMessageContaining("sessionRef");
    assertThatThrownBy(() -> new AcceptDeviceEventCommand("d", "e", null, AT, null, null))
        .hasMessageContaining("type");
    assertThatThrownBy(
            () -> new AcceptDeviceEventCommand("d", "e", DeviceEventType.Started, null, null, null))
        .hasMessageContaining("occurredAt");
    assertThatThrownBy(
            () ->
                new AcceptDeviceEventCommand(
                    "d", "e", DeviceEventType.Started, AT, null, Json.mapper().createArrayNode()))
        .hasMessageContaining("attributes");
  }
}
