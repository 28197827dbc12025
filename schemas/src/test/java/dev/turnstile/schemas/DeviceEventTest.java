package dev.turnstile.schemas;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.turnstile.schemas.DeviceEvent.AsSent;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.List;
import org.junit.jupiter.api.Test;

class DeviceEventTest {

  private static final Instant NOW = Instant.parse("2026-01-02T03:04:05Z");

  private static DeviceEvent.Checked create(
      String deviceId, String eventId, String type, String occurredAt, String sessionRef) {
    return DeviceEvent.create(
        new AsSent(deviceId, eventId, type, occurredAt, sessionRef, null),
        NOW,
        OccurredAtWindow.DEFAULT);
  }

  private static List<String> refusals(DeviceEvent.Checked checked) {
    assertThat(checked).isInstanceOf(DeviceEvent.Invalid.class);
    return ((DeviceEvent.Invalid) checked)
        .violations().stream().map(v -> v.pointer() + " " + v.keyword()).toList();
  }

  @Test
  void aValidEventIsBuiltWithItsOffsetKeptAndTheReceiveTime() {
    DeviceEvent.Checked checked =
        create("station-7", "e-1", "Finished", "2014-11-18t15:40:26.5-08:00", "s-1");

    assertThat(checked).isInstanceOf(DeviceEvent.Valid.class);
    DeviceEvent event = ((DeviceEvent.Valid) checked).event();
    assertThat(event.type()).isEqualTo(DeviceEventType.Finished);
    assertThat(event.occurredAt()).isEqualTo(OffsetDateTime.parse("2014-11-18T15:40:26.5-08:00"));
    assertThat(event.receivedAt()).isEqualTo(NOW);
    assertThat(event.violations()).isEmpty();
  }

  @Test
  void everyBrokenRuleIsListedWithItsPointerInFieldOrder() {
    assertThat(refusals(create("..", null, "Paused", "2014-11-18T15:40:26", "a b")))
        .containsExactly(
            " deviceId",
            "/eventId required",
            "/sessionRef pattern",
            "/type enum",
            "/occurredAt format");
  }

  @Test
  void theTypeMessageNamesEveryType() {
    DeviceEvent.Invalid invalid =
        (DeviceEvent.Invalid) create("d", "e", "started", "2014-11-18T15:40:26Z", null);
    assertThat(invalid.violations().get(0).message()).isEqualTo("type must be Started or Finished");
  }

  @Test
  void aTimeOutsideTheWindowIsOutOfRangeButOnlyWhereAWindowIsGiven() {
    assertThat(refusals(create("d", "e", "Started", "1999-12-31T23:59:59Z", null)))
        .containsExactly("/occurredAt range");
    assertThat(
            DeviceEvent.create(
                new AsSent("d", "e", "Started", "1999-12-31T23:59:59Z", null, null), NOW, null))
        .isInstanceOf(DeviceEvent.Valid.class);
  }

  @Test
  void aLeapSecondIsRefusedSayingWhy() {
    DeviceEvent.Invalid invalid =
        (DeviceEvent.Invalid) create("d", "e", "Started", "2016-12-31T23:59:60Z", null);
    assertThat(invalid.violations().get(0).message()).contains("leap second");
  }

  @Test
  void attributesMustBeAnObject() {
    DeviceEvent.Checked checked =
        DeviceEvent.create(
            new AsSent(
                "d",
                "e",
                "Started",
                "2014-11-18T15:40:26Z",
                null,
                JsonNodeFactory.instance.arrayNode()),
            NOW,
            null);
    assertThat(refusals(checked)).containsExactly("/attributes type");
  }

  @Test
  void aStoredEventIsCheckedByTheSameIdentifierRule() {
    DeviceEvent stored =
        new DeviceEvent(
            ".",
            "e-1",
            DeviceEventType.Started,
            OffsetDateTime.parse("2014-11-18T15:40:26Z"),
            "..",
            null,
            null);
    assertThat(stored.violations())
        .extracting(v -> v.pointer() + " " + v.keyword())
        .containsExactly("/deviceId pattern", "/sessionRef pattern");
    assertThat(new DeviceEvent(null, null, null, null, null, null, null).violations())
        .extracting(Violation::pointer)
        .containsExactly("/deviceId", "/eventId", "/type", "/occurredAt");
  }
}
