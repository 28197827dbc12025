package dev.turnstile.topology.domain.session;

import static org.assertj.core.api.Assertions.assertThat;

import dev.turnstile.schemas.DeviceEvent;
import dev.turnstile.schemas.DeviceEventType;
import dev.turnstile.schemas.DeviceSessionEvent;
import dev.turnstile.schemas.DeviceSessionEventType;
import dev.turnstile.schemas.RejectionReason;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class DeviceSessionsTest {

  static final OffsetDateTime T0 = OffsetDateTime.parse("2014-11-18T15:40:26-05:00");
  static final long ARRIVAL = Instant.parse("2026-11-30T12:00:00Z").toEpochMilli();
  static final SessionPolicy POLICY =
      new SessionPolicy(Duration.ofMinutes(5), Duration.ofHours(72), 3, Duration.ofDays(7));

  /** An in-memory fake of our own port; the window-store adapter is tested in the topology. */
  final Map<String, DeviceSessionEventType> endedRefs = new HashMap<>();

  final EndedSessions ended =
      new EndedSessions() {
        @Override
        public Optional<DeviceSessionEventType> outcome(String sessionRef) {
          return Optional.ofNullable(endedRefs.get(sessionRef));
        }

        @Override
        public void remember(String sessionRef, DeviceSessionEventType outcome) {
          endedRefs.put(sessionRef, outcome);
        }
      };

  DeviceSessions device = DeviceSessions.restore(POLICY, null, ended);

  static DeviceEvent started(String id, String ref, OffsetDateTime at) {
    return new DeviceEvent("station-1", id, DeviceEventType.Started, at, ref, null, null);
  }

  static DeviceEvent finished(String id, String ref, OffsetDateTime at) {
    return new DeviceEvent("station-1", id, DeviceEventType.Finished, at, ref, null, null);
  }

  private List<DeviceSessionEventType> types(Outcome outcome) {
    return outcome.sessionEvents().stream().map(DeviceSessionEvent::type).toList();
  }

  private List<RejectionReason> reasons(Outcome outcome) {
    return outcome.rejections().stream().map(Rejection::reason).toList();
  }

  @Test
  void startedOpensAndFinishedClosesWithTheDeviceTimeDuration() {
    assertThat(types(device.apply(started("s", "r1", T0), ARRIVAL)))
        .containsExactly(DeviceSessionEventType.Opened);
    Outcome closed = device.apply(finished("f", "r1", T0.plusHours(2)), ARRIVAL + 10);

    assertThat(closed.sessionEvents()).hasSize(1);
    DeviceSessionEvent event = closed.sessionEvents().get(0);
    assertThat(event.type()).isEqualTo(DeviceSessionEventType.Closed);
    assertThat(event.durationMillis()).isEqualTo(Duration.ofHours(2).toMillis());
    assertThat(event.startedAt()).isEqualTo(T0);
    assertThat(event.endedAt()).isEqualTo(T0.plusHours(2));
    assertThat(event.sessionId()).isEqualTo(DeviceSession.sessionId("station-1", "s"));
    assertThat(device.nextDeadline()).isEmpty();
  }

  @Test
  void anExitBeforeTheEntryIsRejectedAndTheSessionStaysOpen() {
    device.apply(started("s", "r1", T0), ARRIVAL);

    Outcome early = device.apply(finished("f-bad", "r1", T0.minusSeconds(1)), ARRIVAL);
    assertThat(reasons(early)).containsExactly(RejectionReason.FINISHED_BEFORE_STARTED);
    assertThat(early.sessionEvents()).isEmpty();

    assertThat(types(device.apply(finished("f", "r1", T0.plusMinutes(1)), ARRIVAL)))
        .containsExactly(DeviceSessionEventType.Closed);
  }

  @Test
  void aFinishedBeforeItsStartedIsHeldAndMatchedWithinTheGrace() {
    Outcome held = device.apply(finished("f", "r1", T0.plusHours(1)), ARRIVAL);
    assertThat(held.isEmpty()).isTrue();
    assertThat(device.nextDeadline()).hasValue(ARRIVAL + Duration.ofMinutes(5).toMillis());

    Outcome matched = device.apply(started("s", "r1", T0), ARRIVAL + 1_000);
    assertThat(types(matched))
        .containsExactly(DeviceSessionEventType.Opened, DeviceSessionEventType.Closed);
    assertThat(device.nextDeadline()).isEmpty();
  }

  @Test
  void aHeldFinishedWhoseStartedNeverComesIsRejectedWhenTheGraceEnds() {
    device.apply(finished("f", "r1", T0), ARRIVAL);

    assertThat(device.expire(ARRIVAL + Duration.ofMinutes(5).toMillis() - 1).isEmpty()).isTrue();
    Outcome expired = device.expire(ARRIVAL + Duration.ofMinutes(5).toMillis());
    assertThat(reasons(expired)).containsExactly(RejectionReason.FINISHED_WITHOUT_STARTED);
    assertThat(expired.rejections().get(0).event().eventId()).isEqualTo("f");
  }

  @Test
  void sessionRefsKeepOverlappingSessionsApart() {
    device.apply(started("s1", "r1", T0), ARRIVAL);
    device.apply(started("s2", "r2", T0.plusMinutes(30)), ARRIVAL);

    Outcome closeFirst = device.apply(finished("f1", "r1", T0.plusHours(1)), ARRIVAL);
    Outcome closeSecond = device.apply(finished("f2", "r2", T0.plusHours(2)), ARRIVAL);

    assertThat(closeFirst.sessionEvents().get(0).sessionRef()).isEqualTo("r1");
    assertThat(closeFirst.sessionEvents().get(0).durationMillis())
        .isEqualTo(Duration.ofHours(1).toMillis());
    assertThat(closeSecond.sessionEvents().get(0).sessionRef()).isEqualTo("r2");
    assertThat(closeSecond.sessionEvents().get(0).durationMillis())
        .isEqualTo(Duration.ofMinutes(90).toMillis());
  }

  @Test
  void aSecondStartedWithoutRefSupersedesTheOpenSessionAndSaysSo() {
    device.apply(started("s1", null, T0), ARRIVAL);

    Outcome second = device.apply(started("s2", null, T0.plusHours(1)), ARRIVAL);

    assertThat(types(second))
        .containsExactly(DeviceSessionEventType.Superseded, DeviceSessionEventType.Opened);
    assertThat(second.sessionEvents().get(0).startEventId()).isEqualTo("s1");
    assertThat(second.sessionEvents().get(0).supersededBy()).isEqualTo("s2");
    Outcome closed = device.apply(finished("f", null, T0.plusHours(2)), ARRIVAL);
    assertThat(closed.sessionEvents().get(0).startEventId()).isEqualTo("s2");
  }

  @Test
  void aSecondStartedForAnOpenRefIsRejected() {
    device.apply(started("s1", "r1", T0), ARRIVAL);

    assertThat(reasons(device.apply(started("s1-again", "r1", T0), ARRIVAL)))
        .containsExactly(RejectionReason.SESSION_ALREADY_OPEN);
  }

  @Test
  void eventsForAnEndedRefAreRejectedWithHowItEnded() {
    device.apply(started("s1", "r1", T0), ARRIVAL);
    device.apply(finished("f1", "r1", T0.plusHours(1)), ARRIVAL);

    Outcome lateFinish = device.apply(finished("f1-other-id", "r1", T0.plusHours(1)), ARRIVAL);
    Outcome lateStart = device.apply(started("s1-other-id", "r1", T0), ARRIVAL);

    assertThat(reasons(lateFinish)).containsExactly(RejectionReason.SESSION_ALREADY_ENDED);
    assertThat(lateFinish.rejections().get(0).detail()).contains("Closed");
    assertThat(reasons(lateStart)).containsExactly(RejectionReason.SESSION_ALREADY_ENDED);
  }

  @Test
  void aSecondHeldFinishedForTheSameRefIsRejected() {
    device.apply(finished("f1", "r1", T0), ARRIVAL);

    assertThat(reasons(device.apply(finished("f2", "r1", T0), ARRIVAL)))
        .containsExactly(RejectionReason.FINISHED_ALREADY_RECEIVED);
  }

  @Test
  void theReorderBufferIsBounded() {
    device.apply(finished("f1", "r1", T0), ARRIVAL);
    device.apply(finished("f2", "r2", T0), ARRIVAL);
    device.apply(finished("f3", "r3", T0), ARRIVAL);

    assertThat(reasons(device.apply(finished("f4", "r4", T0), ARRIVAL)))
        .containsExactly(RejectionReason.REORDER_BUFFER_FULL);
  }

  @Test
  void openSessionsExpireOnArrivalTimeNotOnTheDeviceClock() {
    // A 2014 timestamp arriving now must not expire at once.
    device.apply(started("s1", "r1", T0), ARRIVAL);
    assertThat(device.expire(ARRIVAL + 1).isEmpty()).isTrue();

    Outcome expired = device.expire(ARRIVAL + Duration.ofHours(72).toMillis());

    assertThat(types(expired)).containsExactly(DeviceSessionEventType.Expired);
    assertThat(reasons(device.apply(finished("f1", "r1", T0.plusHours(80)), ARRIVAL)))
        .containsExactly(RejectionReason.SESSION_ALREADY_ENDED);
  }

  @Test
  void endedRefsLeaveTheSnapshotSoItsSizeDoesNotGrowWithPastSessions() {
    for (int i = 1; i <= 5; i++) {
      device.apply(started("s" + i, "r" + i, T0), ARRIVAL);
      device.apply(finished("f" + i, "r" + i, T0.plusMinutes(1)), ARRIVAL);
    }

    assertThat(device.snapshot().isEmpty()).isTrue();
    assertThat(endedRefs).containsOnlyKeys("r1", "r2", "r3", "r4", "r5");
    endedRefs.remove("r1");
    assertThat(types(device.apply(started("s1-again", "r1", T0), ARRIVAL)))
        .containsExactly(DeviceSessionEventType.Opened);
  }

  @Test
  void aSnapshotRestoresTheSameBehaviour() {
    device.apply(started("s1", "r1", T0), ARRIVAL);
    device.apply(finished("f2", "r2", T0.plusHours(3)), ARRIVAL);

    DeviceSessions restored = DeviceSessions.restore(POLICY, device.snapshot(), ended);

    assertThat(types(restored.apply(finished("f1", "r1", T0.plusHours(1)), ARRIVAL)))
        .containsExactly(DeviceSessionEventType.Closed);
    assertThat(types(restored.apply(started("s2", "r2", T0.plusHours(2)), ARRIVAL)))
        .containsExactly(DeviceSessionEventType.Opened, DeviceSessionEventType.Closed);
  }
}
