package dev.turnstile.topology.adapter.streams;

import static dev.turnstile.schemas.DeviceEventType.Finished;
import static dev.turnstile.schemas.DeviceEventType.Started;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.turnstile.contracttest.GoldenSamples;
import dev.turnstile.contracttest.SchemaValidator;
import dev.turnstile.schemas.Json;
import dev.turnstile.topology.port.in.DeviceSessionsView;
import dev.turnstile.topology.port.in.MergedDocumentView;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.WindowStore;
import org.apache.kafka.streams.state.WindowStoreIterator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The query views from what the production topology wrote into its stores (TopologyTestDriver), so
 * the views and the processors' storage cannot drift apart; each view validates against its schema.
 */
class StateViewsTest {

  static final OffsetDateTime T0 = OffsetDateTime.parse("2014-11-18T15:40:26-08:00");
  static final Duration MERGE_RETENTION = Duration.ofDays(30);

  @TempDir Path stateDir;

  @Test
  void aDeviceWithNothingHeldHasTwoEmptyLists() {
    try (TopologyFixture topology = new TopologyFixture(stateDir)) {
      DeviceSessionsView view = sessions(topology, "station-9", TopologyFixture.START);
      assertThat(view.open()).isEmpty();
      assertThat(view.recentlyEnded()).isEmpty();
      assertValid("device-sessions-view.v1", view);
    }
  }

  @Test
  void openSessionsAndEndedReferencesAreListedAsTheOutputTopicTellsThem() {
    try (TopologyFixture topology = new TopologyFixture(stateDir)) {
      Instant closedAt = TopologyFixture.START.plusSeconds(60);
      topology.send(TopologyFixture.event("station-1", "s-1", Started, "r-1", T0));
      topology.send(TopologyFixture.event("station-1", "s-2", Started, "r-2", T0.plusMinutes(1)));
      topology.send(
          TopologyFixture.event("station-1", "f-1", Finished, "r-1", T0.plusMinutes(30)), closedAt);
      topology.send(TopologyFixture.event("station-2", "s-3", Started, "r-3", T0));
      String openedId =
          topology.sessionEvents().stream()
              .filter(e -> "r-2".equals(e.sessionRef()))
              .findFirst()
              .orElseThrow()
              .sessionId();

      Instant asOf = TopologyFixture.START.plusSeconds(90);
      DeviceSessionsView view = sessions(topology, "station-1", asOf);

      assertThat(view.open())
          .singleElement()
          .satisfies(
              open -> {
                assertThat(open.sessionId()).isEqualTo(openedId);
                assertThat(open.sessionRef()).isEqualTo("r-2");
                assertThat(open.startedAt()).isEqualTo(T0.plusMinutes(1));
                assertThat(open.openedAt()).isEqualTo(TopologyFixture.START);
                assertThat(open.openForMs()).isEqualTo(90_000);
              });
      assertThat(view.recentlyEnded())
          .containsExactly(new DeviceSessionsView.EndedSession("r-1", "Closed", closedAt));
      assertValid("device-sessions-view.v1", view);
    }
  }

  @Test
  void anotherDevicesEntriesAreNeverListed() {
    byte[][] range = DeviceStateKeys.deviceRange("ab");
    Bytes from = Bytes.wrap(range[0]);
    Bytes to = Bytes.wrap(range[1]);
    for (byte[] own :
        List.of(
            DeviceStateKeys.slot("ab", "zzz"),
            DeviceStateKeys.slot("ab", null),
            DeviceStateKeys.lone("ab", "\uffff"))) {
      assertThat(Bytes.wrap(own).compareTo(from)).isPositive();
      assertThat(Bytes.wrap(own).compareTo(to)).isNegative();
      assertThat(DeviceStateKeys.parse(own).deviceId()).isEqualTo("ab");
    }
    for (byte[] other :
        List.of(DeviceStateKeys.slot("abc", "r"), DeviceStateKeys.slot("ac", "a"))) {
      Bytes key = Bytes.wrap(other);
      assertThat(key.compareTo(from) < 0 || key.compareTo(to) > 0).as("outside the range").isTrue();
    }
    DeviceStateKeys.Parsed parsed = DeviceStateKeys.parse(DeviceStateKeys.slot("ab", "r-1"));
    assertThat(parsed.sessionRef()).isEqualTo("r-1");
    assertThat(DeviceStateKeys.parse(DeviceStateKeys.slot("ab", null)).sessionRef()).isNull();
  }

  @Test
  void theMergedDocumentIsWhatTheLastMergeResultSays() {
    try (TopologyFixture topology = new TopologyFixture(stateDir)) {
      topology.sendServiceBus(
          "1366563", "m1", 1, "1366563", "{\"userId\":\"u1\",\"kwhTotal\":7.78}".getBytes());
      topology.sendServiceBus(
          "1366563",
          "m2",
          2,
          "1366563",
          "{\"kwhTotal\":8.1,\"dollars\":1}".getBytes(),
          TopologyFixture.START.plusSeconds(5));
      List<byte[]> results = topology.mergeResults.readValuesToList();
      JsonNode last = TopologyFixture.tree(results.get(results.size() - 1));

      MergedDocumentView view =
          merged(topology, "1366563", TopologyFixture.START.plusSeconds(10)).orElseThrow();

      JsonNode json = TopologyFixture.tree(TopologyFixture.json(view));
      for (String field :
          List.of(
              "mergeKey", "mergeResultId", "version", "document", "contributionCount", "sources")) {
        assertThat(json.get(field)).as(field).isEqualTo(last.get(field));
      }
      assertThat(view.updatedAt()).isEqualTo(TopologyFixture.START.plusSeconds(5));
      assertValid("merged-document-view.v1", view);
      assertThat(merged(topology, "unknown", TopologyFixture.START)).isEmpty();
      assertThat(
              merged(
                  topology, "1366563", TopologyFixture.START.plus(MERGE_RETENTION).plusSeconds(6)))
          .as("older than the retention: the next patch starts a new document")
          .isEmpty();
    }
  }

  /** What the query adapter reads, read the same way from the driver's stores. */
  private static DeviceSessionsView sessions(
      TopologyFixture topology, String device, Instant asOf) {
    WindowStore<Bytes, byte[]> store = topology.driver.getWindowStore(Names.DEVICE_STATE_STORE);
    byte[][] range = DeviceStateKeys.deviceRange(device);
    List<StateViews.Stored> slots = new ArrayList<>();
    try (KeyValueIterator<Windowed<Bytes>, byte[]> all =
        store.fetch(
            Bytes.wrap(range[0]),
            Bytes.wrap(range[1]),
            Instant.EPOCH,
            Instant.ofEpochMilli(Long.MAX_VALUE))) {
      all.forEachRemaining(
          kv ->
              slots.add(
                  new StateViews.Stored(kv.key.key().get(), kv.value, kv.key.window().start())));
    }
    return StateViews.deviceSessions(device, slots, asOf, Duration.ofDays(7));
  }

  private static Optional<MergedDocumentView> merged(
      TopologyFixture topology, String key, Instant asOf) {
    WindowStore<Bytes, byte[]> store = topology.driver.getWindowStore(Names.MERGE_STORE);
    StateViews.Stored newest = null;
    byte[] raw = key.getBytes(StandardCharsets.UTF_8);
    try (WindowStoreIterator<byte[]> windows =
        store.fetch(Bytes.wrap(raw), Instant.EPOCH, Instant.ofEpochMilli(Long.MAX_VALUE))) {
      while (windows.hasNext()) {
        KeyValue<Long, byte[]> window = windows.next();
        newest = new StateViews.Stored(raw, window.value, window.key);
      }
    }
    return StateViews.mergedDocument(key, newest, asOf, MERGE_RETENTION, 12);
  }

  private static void assertValid(String schema, Object view) {
    try {
      SchemaValidator.assertValid(
          GoldenSamples.schemaResource(schema), Json.mapper().writeValueAsBytes(view));
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new AssertionError(e);
    }
  }
}
