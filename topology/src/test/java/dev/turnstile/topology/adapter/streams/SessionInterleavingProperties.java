package dev.turnstile.topology.adapter.streams;

import static dev.turnstile.topology.adapter.streams.TopologyFixture.START;
import static org.assertj.core.api.Assertions.assertThat;

import dev.turnstile.schemas.DeviceEvent;
import dev.turnstile.schemas.DeviceEventType;
import dev.turnstile.schemas.DeviceSessionEvent;
import dev.turnstile.schemas.DeviceSessionEventType;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * For any interleaving and duplication of a device's events arriving within the reorder grace, the
 * topology (dedup + sessions) emits the same sessions: each opened once and closed once with the
 * same times, and nothing rejected.
 */
class SessionInterleavingProperties {

  static final OffsetDateTime T0 = OffsetDateTime.parse("2015-03-02T08:00:00-08:00");

  record Session(String ref, int startMinute, int durationMinutes) {}

  record Scenario(List<Session> sessions, long shuffleSeed, List<Integer> resent) {}

  @Provide
  Arbitrary<Scenario> scenarios() {
    Arbitrary<Session> session =
        Combinators.combine(
                Arbitraries.integers().between(0, 600), Arbitraries.integers().between(0, 3_300))
            .as((start, duration) -> new Session(null, start, duration));
    Arbitrary<List<Session>> sessions =
        session
            .list()
            .ofMinSize(1)
            .ofMaxSize(6)
            .map(
                list -> {
                  List<Session> named = new ArrayList<>();
                  for (int i = 0; i < list.size(); i++) {
                    Session s = list.get(i);
                    named.add(new Session("ref-" + i, s.startMinute(), s.durationMinutes()));
                  }
                  return named;
                });
    return Combinators.combine(
            sessions,
            Arbitraries.longs(),
            Arbitraries.integers().between(0, 11).list().ofMaxSize(6))
        .as(Scenario::new);
  }

  @Property(tries = 40)
  void interleavingAndDuplicationDoNotChangeTheSessions(@ForAll("scenarios") Scenario scenario)
      throws IOException {
    List<DeviceEvent> events = new ArrayList<>();
    for (Session s : scenario.sessions()) {
      OffsetDateTime start = T0.plusMinutes(s.startMinute());
      events.add(event(s.ref() + "-started", DeviceEventType.Started, s.ref(), start));
      events.add(
          event(
              s.ref() + "-finished",
              DeviceEventType.Finished,
              s.ref(),
              start.plusMinutes(s.durationMinutes())));
    }
    List<DeviceEvent> arrivals = new ArrayList<>(events);
    scenario.resent().stream()
        .filter(i -> i < events.size())
        .map(events::get)
        .forEach(arrivals::add);
    Collections.shuffle(arrivals, new Random(scenario.shuffleSeed()));

    Path stateDir = Files.createTempDirectory("interleaving");
    try (TopologyFixture topology = new TopologyFixture(stateDir)) {
      for (int i = 0; i < arrivals.size(); i++) {
        topology.send(arrivals.get(i), START.plusSeconds(i));
      }
      List<DeviceSessionEvent> emitted = topology.sessionEvents();

      assertThat(topology.rejections()).isEmpty();
      assertThat(summary(emitted, DeviceSessionEventType.Opened))
          .isEqualTo(expected(scenario, DeviceSessionEventType.Opened));
      assertThat(summary(emitted, DeviceSessionEventType.Closed))
          .isEqualTo(expected(scenario, DeviceSessionEventType.Closed));
      assertThat(emitted).hasSize(2 * scenario.sessions().size());
    } finally {
      try (Stream<Path> files = Files.walk(stateDir)) {
        files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  private static DeviceEvent event(String id, DeviceEventType type, String ref, OffsetDateTime at) {
    return TopologyFixture.event("station-7", id, type, ref, at);
  }

  private static Set<String> summary(List<DeviceSessionEvent> events, DeviceSessionEventType type) {
    return events.stream()
        .filter(e -> e.type() == type)
        .map(
            e ->
                e.sessionRef() + "|" + e.startedAt() + "|" + e.endedAt() + "|" + e.durationMillis())
        .collect(Collectors.toSet());
  }

  private static Set<String> expected(Scenario scenario, DeviceSessionEventType type) {
    return scenario.sessions().stream()
        .map(
            s -> {
              OffsetDateTime start = T0.plusMinutes(s.startMinute());
              return type == DeviceSessionEventType.Opened
                  ? s.ref() + "|" + start + "|null|null"
                  : s.ref()
                      + "|"
                      + start
                      + "|"
                      + start.plusMinutes(s.durationMinutes())
                      + "|"
                      + s.durationMinutes() * 60_000L;
            })
        .collect(Collectors.toSet());
  }
}
