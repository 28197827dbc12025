package dev.turnstile.topology.adapter.streams;

import static dev.turnstile.schemas.DeviceEventType.Finished;
import static dev.turnstile.schemas.DeviceEventType.Started;
import static dev.turnstile.topology.adapter.streams.TopologyFixture.GRACE;
import static dev.turnstile.topology.adapter.streams.TopologyFixture.MAX_DURATION;
import static dev.turnstile.topology.adapter.streams.TopologyFixture.START;
import static dev.turnstile.topology.adapter.streams.TopologyFixture.event;
import static org.assertj.core.api.Assertions.assertThat;

import dev.turnstile.schemas.DeviceEvent;
import dev.turnstile.schemas.DeviceSessionEvent;
import dev.turnstile.schemas.DeviceSessionEventType;
import dev.turnstile.schemas.RejectionReason;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A generation reprocessing old input runs far behind the wall clock, and its punctuations fall
 * wherever the machine's speed puts them. Expiry and the reorder grace must then be decided by the
 * input alone: the same records give the same session events and rejections whether a punctuation
 * ran between two of them or not (docs/changing-a-rule.md, "Determinism").
 */
class ReprocessingDeterminismTest {

  static final OffsetDateTime T0 = OffsetDateTime.parse("2014-11-18T15:40:26-05:00");

  @TempDir Path dirs;

  /** One record of the input: an event and its arrival time (the bridge's record timestamp). */
  record Arrival(DeviceEvent event, Instant at) {}

  /**
   * A session whose {@code Finished} arrives after the maximum duration, a {@code Finished} whose
   * {@code Started} arrives after the grace, and a session that closes in time, on one partition.
   */
  static List<Arrival> input() {
    List<Arrival> input = new ArrayList<>();
    input.add(arrival("st-a", "a-s", Started, "a", T0, Duration.ZERO));
    input.add(arrival("st-c", "c-f", Finished, "c", T0.plusHours(1), Duration.ZERO));
    input.add(arrival("st-e", "e-s", Started, "e", T0, Duration.ofSeconds(30)));
    input.add(arrival("st-b", "b-s", Started, "b", T0, GRACE.plusMinutes(1)));
    input.add(arrival("st-c", "c-s", Started, "c", T0, GRACE.plusMinutes(2)));
    input.add(arrival("st-e", "e-f", Finished, "e", T0.plusHours(2), Duration.ofHours(2)));
    input.add(arrival("st-a", "a-f", Finished, "a", T0.plusHours(75), MAX_DURATION.plusMinutes(2)));
    input.add(
        arrival(
            "st-b",
            "b-f",
            Finished,
            "b",
            T0.plusHours(80),
            MAX_DURATION.plus(GRACE).plusMinutes(1).plusSeconds(30)));
    return input;
  }

  /**
   * An event arriving {@code after} the input's first record, which arrived 30 days before the
   * driver's wall clock: the input is old, as the raw topics are to a new generation.
   */
  static Arrival arrival(
      String device,
      String id,
      dev.turnstile.schemas.DeviceEventType type,
      String ref,
      OffsetDateTime at,
      Duration after) {
    return new Arrival(
        event(device, id, type, ref, at), START.minus(Duration.ofDays(30)).plus(after));
  }

  /** What a consumer of the outputs sees, without the processing time a rejection carries. */
  record Outputs(List<DeviceSessionEvent> sessions, List<String> rejections) {}

  Outputs run(boolean punctuateBetweenRecords) throws Exception {
    try (TopologyFixture topology = new TopologyFixture(Files.createTempDirectory(dirs, "run"))) {
      for (Arrival arrival : input()) {
        topology.send(arrival.event(), arrival.at());
        if (punctuateBetweenRecords) {
          // The wall clock runs on, less than the settling period: punctuations use stream time.
          topology.driver.advanceWallClockTime(Duration.ofSeconds(10));
        }
      }
      return new Outputs(
          topology.sessionEvents(),
          topology.rejections().stream()
              .map(r -> r.stage() + " " + r.eventId() + " " + r.reason())
              .toList());
    }
  }

  @Test
  void theOutcomeIsTheSameWhetherOrNotPunctuationsRanBetweenTheRecords() throws Exception {
    Outputs quiet = run(false);
    Outputs punctuated = run(true);

    assertThat(punctuated).isEqualTo(quiet);
  }

  @Test
  void expiryAndTheGraceAreDecidedByArrivalTimes() throws Exception {
    Outputs outputs = run(false);

    assertThat(outputs.sessions())
        .filteredOn(e -> e.type() != DeviceSessionEventType.Opened)
        .extracting(e -> e.sessionRef() + " " + e.type())
        .containsExactly("e Closed", "a Expired", "b Expired");
    assertThat(outputs.rejections())
        .containsExactly(
            "device-session c-f " + RejectionReason.FINISHED_WITHOUT_STARTED,
            "device-session a-f " + RejectionReason.SESSION_ALREADY_ENDED,
            "device-session b-f " + RejectionReason.SESSION_ALREADY_ENDED);
  }
}
