package dev.turnstile.topology.adapter.streams;

import static dev.turnstile.schemas.DeviceEventType.Finished;
import static dev.turnstile.schemas.DeviceEventType.Started;
import static dev.turnstile.topology.adapter.streams.TopologyFixture.START;
import static dev.turnstile.topology.adapter.streams.TopologyFixture.event;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.turnstile.schemas.DeviceEvent;
import dev.turnstile.schemas.DeviceSessionEvent;
import dev.turnstile.schemas.DeviceSessionEventType;
import dev.turnstile.schemas.RejectedEvent;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.List;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.state.WindowStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the device path promises about copies, now that a session event is remembered in its
 * session's own record (docs/design.md, "Dedup" and "State and recovery"): an event id seen once is
 * recognised for the whole retention whatever {@code sessionRef}, type, content or record timestamp
 * a later copy carries, and no record grows with a device's history.
 */
class DeviceDedupTest {

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

  @Test
  void aCopyUnderAnotherSessionRefIsAConflictWhileTheSessionIsOpen() {
    topology.send(event("st-1", "e1", Started, "r1", T0));
    topology.send(event("st-1", "e1", Started, "r2", T0), START.plusSeconds(5));

    assertThat(types(topology.sessionEvents())).containsExactly(DeviceSessionEventType.Opened);
    assertThat(reasons(topology.rejections())).containsExactly("DUPLICATE_CONFLICT");
  }

  @Test
  void aCopyUnderAnotherSessionRefIsAConflictAfterTheSessionEnded() {
    topology.send(event("st-1", "s1", Started, "r1", T0));
    topology.send(event("st-1", "f1", Finished, "r1", T0.plusHours(1)), START.plusSeconds(5));
    // Both ids again, each under a reference that is open or unknown: neither may take effect.
    topology.send(event("st-1", "s2", Started, "r2", T0), START.plusSeconds(6));
    topology.send(event("st-1", "f1", Finished, "r2", T0.plusHours(2)), START.plusSeconds(7));
    topology.send(event("st-1", "s1", Started, "r3", T0), START.plusSeconds(8));

    assertThat(types(topology.sessionEvents()))
        .containsExactly(
            DeviceSessionEventType.Opened,
            DeviceSessionEventType.Closed,
            DeviceSessionEventType.Opened);
    List<RejectedEvent> rejections = topology.rejections();
    assertThat(reasons(rejections)).containsExactly("DUPLICATE_CONFLICT", "DUPLICATE_CONFLICT");
    assertThat(rejections.get(0).detail()).contains("first seen at 2026-01-05T12:00:05Z");
  }

  @Test
  void aCopyWithAnotherTypeOrContentIsAConflictAndAnIdenticalOneADuplicate() {
    topology.send(event("st-1", "e1", Started, null, T0));
    topology.send(event("st-1", "e1", Finished, null, T0.plusHours(1)), START.plusSeconds(1));
    DeviceEvent withAttributes =
        new DeviceEvent(
            "st-1",
            "e1",
            Started,
            T0,
            null,
            JsonNodeFactory.instance.objectNode().put("kWh", 1),
            START);
    topology.send(withAttributes, START.plusSeconds(2));
    // The bridge's receive time differs on every resend and is not content.
    topology.send(
        new DeviceEvent("st-1", "e1", Started, T0, null, null, START.plusSeconds(90)),
        START.plusSeconds(90));

    assertThat(types(topology.sessionEvents())).containsExactly(DeviceSessionEventType.Opened);
    assertThat(reasons(topology.rejections()))
        .containsExactly("DUPLICATE_CONFLICT", "DUPLICATE_CONFLICT");
    assertThat(duplicates()).isEqualTo(1.0);
  }

  @Test
  void anEventBackfilledFarBehindStreamTimeIsAcceptedOnceAndItsCopyIsADuplicate() {
    Instant now = START.plus(Duration.ofDays(30));
    topology.send(event("st-9", "recent", Started, null, T0), now);
    // Another writer backfills history: timestamps older than the whole retention.
    Instant history = START;
    topology.send(event("st-1", "old-1", Started, "h1", T0), history);
    topology.send(event("st-1", "old-2", Started, "h2", T0), history);
    topology.send(event("st-1", "old-1", Started, "h1", T0), history.plusSeconds(1));
    topology.send(event("st-1", "old-2", Started, "h2", T0), now);

    assertThat(types(topology.sessionEvents()))
        .containsExactly(
            DeviceSessionEventType.Opened,
            DeviceSessionEventType.Opened,
            DeviceSessionEventType.Opened);
    assertThat(topology.rejections()).isEmpty();
    assertThat(duplicates()).isEqualTo(2.0);
  }

  @Test
  void aSessionEventWritesOneStateRecordAndAnEventWithoutSessionRefTwo() {
    TestOutputTopic<String, byte[]> changelog =
        topology.driver.createOutputTopic(
            "turnstile-topology-" + Names.DEVICE_STATE_STORE + "-changelog",
            new StringDeserializer(),
            new ByteArrayDeserializer());
    topology.send(event("st-1", "s1", Started, "r1", T0));
    topology.send(event("st-1", "f1", Finished, "r1", T0.plusHours(1)));
    topology.send(event("st-1", "f1", Finished, "r1", T0.plusHours(1)));
    assertThat(changelog.readValuesToList()).as("ref'd events and a duplicate").hasSize(2);

    topology.send(event("st-1", "s2", Started, null, T0));
    topology.send(event("st-1", "f2", Finished, null, T0.plusHours(1)));
    assertThat(changelog.readValuesToList()).as("events without sessionRef").hasSize(4);
  }

  @Test
  void noStoredRecordGrowsWithTheDevicesHistory() {
    // A station that reports every minute for a week: sessions with and without a reference.
    Instant at = START;
    for (int minute = 0; minute < 7 * 24 * 60; minute += 2) {
      String ref = minute % 4 == 0 ? "m" + minute : null;
      OffsetDateTime deviceTime = T0.plusMinutes(minute);
      topology.send(event("st-1", "s" + minute, Started, ref, deviceTime), at);
      topology.send(event("st-1", "f" + minute, Finished, ref, deviceTime.plusSeconds(50)), at);
      at = at.plus(Duration.ofMinutes(2));
    }

    assertThat(types(topology.sessionEvents()))
        .hasSize(7 * 24 * 60)
        .doesNotContain(DeviceSessionEventType.Superseded, DeviceSessionEventType.Expired);
    WindowStore<Bytes, byte[]> store = topology.driver.getWindowStore(Names.DEVICE_STATE_STORE);
    int largest = 0;
    try (var all = store.all()) {
      while (all.hasNext()) {
        largest = Math.max(largest, all.next().value.length);
      }
    }
    assertThat(largest).as("the largest device-state-store value, bytes").isLessThan(400);
  }

  private double duplicates() {
    return topology.driver.metrics().entrySet().stream()
        .filter(e -> e.getKey().name().equals("duplicates-total"))
        .filter(e -> Names.DEVICE_EVENT_DEDUP.equals(e.getKey().tags().get("turnstile-dedup-id")))
        .mapToDouble(e -> ((Number) e.getValue().metricValue()).doubleValue())
        .sum();
  }

  private static List<DeviceSessionEventType> types(List<DeviceSessionEvent> events) {
    return events.stream().map(DeviceSessionEvent::type).toList();
  }

  private static List<String> reasons(List<RejectedEvent> rejections) {
    return rejections.stream().map(r -> r.reason().name()).toList();
  }
}
