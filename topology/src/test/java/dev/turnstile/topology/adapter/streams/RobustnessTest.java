package dev.turnstile.topology.adapter.streams;

import static dev.turnstile.schemas.DeviceEventType.Finished;
import static dev.turnstile.schemas.DeviceEventType.Started;
import static dev.turnstile.topology.adapter.streams.TopologyFixture.START;
import static dev.turnstile.topology.adapter.streams.TopologyFixture.event;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.turnstile.schemas.DeviceSessionEventType;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.state.WindowStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Inputs and conditions found in review that could stop the topology, grow a store value past what
 * a changelog record holds, or lose an outcome; each is now handled.
 */
class RobustnessTest {
  static final OffsetDateTime T0 = OffsetDateTime.parse("2014-11-18T15:40:26-05:00");
  @TempDir Path dir;

  @Test
  void anAbsurdNumberCannotStopThePostMergeStage() {
    try (TopologyFixture t = new TopologyFixture(dir)) {
      t.send(event("st-1", "s", Started, "R1", T0));
      t.send(event("st-1", "f", Finished, "R1", T0.plusHours(2)));
      byte[] body =
          "{\"sessionId\":\"R1\",\"userId\":\"u\",\"kwhTotal\":\"1E-2147483647\",\"dollars\":1}"
              .getBytes(StandardCharsets.UTF_8);
      t.sendServiceBus("R1", "m1", 10, "R1", body);

      var outputs = t.postMergeOutputs();
      assertThat(outputs).hasSize(1);
      assertThat(outputs.get(0).has("averagePowerKw")).isFalse();
      assertThat(outputs.get(0).has("pricePerKwh")).isFalse();
    }
  }

  @Test
  void processingLagLongerThanGraceRejectsAFinishedWhoseStartedIsNextInTheBacklog() {
    try (TopologyFixture t = new TopologyFixture(dir)) {
      // backlog: ingested 10 min ago (grace is 5 min), processed now
      t.send(event("d", "f", Finished, "R", T0.plusHours(1)), START.minus(Duration.ofMinutes(10)));
      t.driver.advanceWallClockTime(Duration.ofSeconds(1)); // punctuation between poll batches
      t.send(event("d", "s", Started, "R", T0), START.minus(Duration.ofMinutes(10)).plusSeconds(1));
      var types = t.sessionEvents().stream().map(e -> e.type()).toList();
      assertThat(t.rejections()).isEmpty();
      assertThat(types)
          .containsExactly(DeviceSessionEventType.Opened, DeviceSessionEventType.Closed);
    }
  }

  @Test
  void controlWithoutStaleEntryExpires() {
    try (TopologyFixture t =
        new TopologyFixture(dir, Map.of("topology.max-due-per-punctuation", "1"))) {
      t.send(event("b", "s", Started, "R", T0), START.minus(Duration.ofHours(73)));
      t.sessionEvents();
      // Idle for longer than the 30 s a task without records counts as stalled, not idle.
      for (int i = 0; i < 20; i++) {
        t.driver.advanceWallClockTime(Duration.ofSeconds(2));
      }
      var types = t.sessionEvents().stream().map(e -> e.type()).toList();
      assertThat(types).containsExactly(DeviceSessionEventType.Expired);
    }
  }

  @Test
  void aDeviceStateCannotOutgrowItsBoundAndTheEventThatWouldIsRejected() {
    try (TopologyFixture t = new TopologyFixture(dir)) {
      ObjectNode attrs = JsonNodeFactory.instance.objectNode();
      attrs.put("blob", "x".repeat(60_000));
      // Early Finished events without a sessionRef all wait in the device's anonymous slot.
      for (int i = 0; i < 20; i++) {
        var e =
            new dev.turnstile.schemas.DeviceEvent("d", "f" + i, Finished, T0, null, attrs, START);
        t.send(e);
      }
      WindowStore<Bytes, byte[]> store = t.driver.getWindowStore(Names.DEVICE_STATE_STORE);
      int bytes = 0;
      try (var all = store.all()) {
        while (all.hasNext()) {
          bytes = Math.max(bytes, all.next().value.length);
        }
      }
      assertThat(bytes).isBetween(180_000, 256 * 1024);
      assertThat(t.rejections())
          .extracting(r -> r.reason().name())
          .contains("DEVICE_STATE_FULL")
          .hasSizeGreaterThanOrEqualTo(16);
    }
  }

  @Test
  void aMergeStateCannotOutgrowAChangelogRecord() {
    try (TopologyFixture t = new TopologyFixture(dir)) {
      for (int i = 0; i < 6; i++) {
        String body = "{\"sessionId\":\"K\",\"blob\":\"" + "y".repeat(200_000 + i) + "\"}";
        t.sendServiceBus("K", "m" + i, 10 + i, "K", body.getBytes(StandardCharsets.UTF_8));
      }
      WindowStore<Bytes, byte[]> store = t.driver.getWindowStore(Names.MERGE_STORE);
      List<Integer> sizes = new ArrayList<>();
      try (var stored =
          store.fetch(Bytes.wrap("K".getBytes(StandardCharsets.UTF_8)), 0, Long.MAX_VALUE)) {
        stored.forEachRemaining(kv -> sizes.add(kv.value.length));
      }
      assertThat(sizes).allMatch(bytes -> bytes < 900 * 1024);
      assertThat(t.rejections())
          .extracting(r -> r.reason().name())
          .containsOnly("DOCUMENT_TOO_LARGE");
    }
  }
}
