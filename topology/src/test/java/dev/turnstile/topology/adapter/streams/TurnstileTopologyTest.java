package dev.turnstile.topology.adapter.streams;

import static dev.turnstile.schemas.DeviceEventType.Finished;
import static dev.turnstile.schemas.DeviceEventType.Started;
import static dev.turnstile.topology.adapter.streams.TopologyFixture.GRACE;
import static dev.turnstile.topology.adapter.streams.TopologyFixture.MAX_DURATION;
import static dev.turnstile.topology.adapter.streams.TopologyFixture.START;
import static dev.turnstile.topology.adapter.streams.TopologyFixture.event;
import static org.assertj.core.api.Assertions.assertThat;

import dev.turnstile.schemas.CloudEventHeaders;
import dev.turnstile.schemas.DeviceSessionEvent;
import dev.turnstile.schemas.DeviceSessionEventType;
import dev.turnstile.schemas.RejectedEvent;
import dev.turnstile.schemas.RejectionReason;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.List;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TurnstileTopologyTest {

  static final OffsetDateTime T0 = OffsetDateTime.parse("2014-11-18T15:40:26-05:00");

  @TempDir Path stateDir;
  TopologyFixture topology;

  @BeforeEach
  void start() {
    topology = new TopologyFixture(stateDir);
  }

  @AfterEach
  void stop() {
    topology.close();
  }

  private static List<DeviceSessionEventType> types(List<DeviceSessionEvent> events) {
    return events.stream().map(DeviceSessionEvent::type).toList();
  }

  @Test
  void aResentEventHasOneEffectAndIsCounted() {
    topology.send(event("st-1", "e1", Started, "r1", T0));
    topology.send(event("st-1", "e1", Started, "r1", T0), START.plusSeconds(30));
    topology.send(event("st-1", "e2", Finished, "r1", T0.plusHours(2)));
    topology.send(event("st-1", "e2", Finished, "r1", T0.plusHours(2)), START.plusSeconds(60));

    List<DeviceSessionEvent> events = topology.sessionEvents();
    assertThat(types(events))
        .containsExactly(DeviceSessionEventType.Opened, DeviceSessionEventType.Closed);
    assertThat(events.get(1).durationMillis()).isEqualTo(Duration.ofHours(2).toMillis());
    assertThat(topology.rejections()).isEmpty();
    assertThat(duplicatesTotal()).isEqualTo(2.0);
  }

  @Test
  void theSameEventIdOnAnotherDeviceIsNotADuplicate() {
    topology.send(event("st-1", "e1", Started, null, T0));
    topology.send(event("st-2", "e1", Started, null, T0));

    assertThat(topology.sessionEvents())
        .extracting(DeviceSessionEvent::deviceId)
        .containsExactly("st-1", "st-2");
  }

  @Test
  void aDuplicateOutsideTheRetentionIsNoLongerRecognised() {
    topology.send(event("st-1", "e1", Started, null, T0));
    // Stream time moves past the 7-day retention on this partition.
    topology.send(event("st-9", "other", Started, null, T0), START.plus(Duration.ofDays(8)));
    topology.send(event("st-1", "e1", Started, null, T0), START.plus(Duration.ofDays(8)));

    // st-1's first session expired (72 h after its Started arrived) by the time its next record
    // comes; that record, the resent e1, is not recognised and opens a session again.
    assertThat(types(topology.sessionEvents()))
        .containsExactly(
            DeviceSessionEventType.Opened,
            DeviceSessionEventType.Opened,
            DeviceSessionEventType.Expired,
            DeviceSessionEventType.Opened);
  }

  @Test
  void aFinishedBeforeItsStartedWithinTheGraceClosesTheSession() {
    topology.send(event("st-1", "f", Finished, "r1", T0.plusHours(3)));
    topology.driver.advanceWallClockTime(GRACE.minusSeconds(10));
    topology.send(event("st-1", "s", Started, "r1", T0), START.plus(GRACE.minusSeconds(10)));

    List<DeviceSessionEvent> events = topology.sessionEvents();
    assertThat(types(events))
        .containsExactly(DeviceSessionEventType.Opened, DeviceSessionEventType.Closed);
    assertThat(events.get(1).finishEventId()).isEqualTo("f");
    assertThat(topology.rejections()).isEmpty();
  }

  @Test
  void aFinishedWhoseStartedComesAfterTheGraceIsRejectedAndTheStartedOpens() {
    topology.send(event("st-1", "f", Finished, "r1", T0.plusHours(3)));
    topology.driver.advanceWallClockTime(GRACE.plusSeconds(1));

    List<RejectedEvent> rejections = topology.rejections();
    assertThat(rejections)
        .extracting(RejectedEvent::reason)
        .containsExactly(RejectionReason.FINISHED_WITHOUT_STARTED);
    assertThat(rejections.get(0).event().get("eventId").asText()).isEqualTo("f");

    topology.send(event("st-1", "s", Started, "r1", T0), START.plus(GRACE.plusSeconds(2)));
    assertThat(types(topology.sessionEvents())).containsExactly(DeviceSessionEventType.Opened);
  }

  @Test
  void overlappingSessionsOnOneStationAreTrackedByRef() {
    topology.send(event("st-1", "s1", Started, "1001", T0));
    topology.send(event("st-1", "s2", Started, "1002", T0.plusMinutes(20)));
    topology.send(event("st-1", "f2", Finished, "1002", T0.plusMinutes(50)));
    topology.send(event("st-1", "f1", Finished, "1001", T0.plusHours(4)));

    List<DeviceSessionEvent> closed =
        topology.sessionEvents().stream()
            .filter(e -> e.type() == DeviceSessionEventType.Closed)
            .toList();
    assertThat(closed).extracting(DeviceSessionEvent::sessionRef).containsExactly("1002", "1001");
    assertThat(closed)
        .extracting(DeviceSessionEvent::durationMillis)
        .containsExactly(Duration.ofMinutes(30).toMillis(), Duration.ofHours(4).toMillis());
  }

  @Test
  void anEndedRefIsRememberedForTheRetentionThenForgotten() {
    topology.send(event("st-1", "s1", Started, "r1", T0));
    topology.send(event("st-1", "f1", Finished, "r1", T0.plusHours(1)));
    topology.sessionEvents();

    topology.send(event("st-1", "s1-again", Started, "r1", T0), START.plus(Duration.ofDays(6)));
    assertThat(topology.rejections())
        .extracting(RejectedEvent::reason)
        .containsExactly(RejectionReason.SESSION_ALREADY_ENDED);

    // Stream time moves past the 7-day retention: the reference is forgotten, a new session opens.
    topology.send(event("st-1", "s1-later", Started, "r1", T0), START.plus(Duration.ofDays(15)));
    assertThat(types(topology.sessionEvents())).containsExactly(DeviceSessionEventType.Opened);
  }

  @Test
  void aStartedWithoutRefWhileOpenSupersedes() {
    topology.send(event("st-1", "s1", Started, null, T0));
    topology.send(event("st-1", "s2", Started, null, T0.plusHours(1)));

    assertThat(types(topology.sessionEvents()))
        .containsExactly(
            DeviceSessionEventType.Opened,
            DeviceSessionEventType.Superseded,
            DeviceSessionEventType.Opened);
  }

  @Test
  void anOpenSessionExpiresByWallClockOnAnIdlePartition() {
    topology.send(event("st-1", "s1", Started, "r1", T0));
    topology.sessionEvents();

    topology.driver.advanceWallClockTime(MAX_DURATION.minusMinutes(1));
    assertThat(topology.sessionEvents()).isEmpty();
    topology.driver.advanceWallClockTime(Duration.ofMinutes(2));

    List<DeviceSessionEvent> expired = topology.sessionEvents();
    assertThat(types(expired)).containsExactly(DeviceSessionEventType.Expired);
    assertThat(expired.get(0).sessionRef()).isEqualTo("r1");
  }

  @Test
  void anExitBeforeTheEntryIsRejectedWithTheOriginalEventAndItsOffset() {
    topology.send(event("st-1", "s1", Started, "r1", T0));
    topology.send(event("st-1", "f1", Finished, "r1", T0.minusMinutes(5)));

    RejectedEvent rejected = topology.rejections().get(0);
    assertThat(rejected.reason()).isEqualTo(RejectionReason.FINISHED_BEFORE_STARTED);
    assertThat(rejected.eventId()).isEqualTo("f1");
    assertThat(rejected.sourceOffset()).isEqualTo(1L);
    assertThat(rejected.event().get("occurredAt").asText()).isEqualTo("2014-11-18T15:35:26-05:00");
  }

  @Test
  void aValueThatIsNotJsonIsRejectedAndTheNextEventStillFlows() {
    RecordHeaders headers = new RecordHeaders();
    headers.add(CloudEventHeaders.SOURCE, "/devices/st-1".getBytes(StandardCharsets.UTF_8));
    headers.add(CloudEventHeaders.ID, "bad".getBytes(StandardCharsets.UTF_8));
    topology.input.pipeInput(
        new TestRecord<>("st-1", "{not json".getBytes(StandardCharsets.UTF_8), headers, START));
    topology.send(event("st-1", "s1", Started, "r1", T0));

    RejectedEvent rejected = topology.rejections().get(0);
    assertThat(rejected.reason()).isEqualTo(RejectionReason.MALFORMED_EVENT);
    assertThat(rejected.rawValue()).isEqualTo("e25vdCBqc29u");
    assertThat(metric("rejected-total", "turnstile-rejections-id", "MALFORMED_EVENT"))
        .isEqualTo(1.0);
    assertThat(types(topology.sessionEvents())).containsExactly(DeviceSessionEventType.Opened);
  }

  @Test
  void aRecordWithoutCloudEventsIdIsRejected() {
    topology.input.pipeInput(
        new TestRecord<>(
            "st-1", TopologyFixture.json(event("st-1", "s1", Started, null, T0)), null, START));

    assertThat(topology.rejections())
        .extracting(RejectedEvent::reason)
        .containsExactly(RejectionReason.MISSING_EVENT_ID);
  }

  @Test
  void aKeyThatIsNotTheDeviceIsRejectedAsMalformed() {
    RecordHeaders headers = new RecordHeaders();
    headers.add(CloudEventHeaders.SOURCE, "/devices/st-2".getBytes(StandardCharsets.UTF_8));
    headers.add(CloudEventHeaders.ID, "s1".getBytes(StandardCharsets.UTF_8));
    topology.input.pipeInput(
        new TestRecord<>(
            "st-2", TopologyFixture.json(event("st-1", "s1", Started, null, T0)), headers, START));

    assertThat(topology.rejections())
        .extracting(RejectedEvent::reason)
        .containsExactly(RejectionReason.MALFORMED_EVENT);
  }

  @Test
  void sessionEventsCarryCloudEventsHeaders() {
    topology.send(event("st-1", "s1", Started, null, T0));

    var record = topology.sessions.readRecord();
    assertThat(new String(record.headers().lastHeader("ce_type").value(), StandardCharsets.UTF_8))
        .isEqualTo("dev.turnstile.device-session.opened.v1");
    assertThat(
            new String(record.headers().lastHeader("ce_subject").value(), StandardCharsets.UTF_8))
        .isEqualTo("st-1");
  }

  private double metric(String name, String tag, String value) {
    return topology.driver.metrics().entrySet().stream()
        .filter(e -> e.getKey().name().equals(name))
        .filter(e -> value.equals(e.getKey().tags().get(tag)))
        .mapToDouble(e -> ((Number) e.getValue().metricValue()).doubleValue())
        .sum();
  }

  private double duplicatesTotal() {
    return topology.driver.metrics().entrySet().stream()
        .filter(e -> e.getKey().name().equals("duplicates-total"))
        .mapToDouble(e -> ((Number) e.getValue().metricValue()).doubleValue())
        .sum();
  }
}
