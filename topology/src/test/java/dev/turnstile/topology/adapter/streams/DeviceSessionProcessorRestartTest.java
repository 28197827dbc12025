package dev.turnstile.topology.adapter.streams;

import static org.assertj.core.api.Assertions.assertThat;

import dev.turnstile.schemas.CloudEventHeaders;
import dev.turnstile.schemas.DeviceEvent;
import dev.turnstile.schemas.DeviceEventType;
import dev.turnstile.schemas.DeviceSessionEvent;
import dev.turnstile.schemas.Json;
import dev.turnstile.topology.domain.session.SessionPolicy;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.processor.api.MockProcessorContext.CapturedPunctuator;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorSupplier;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.StoreBuilder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A task that starts on a backlog, or stalls in one: the process was down (killed, fenced, stopped)
 * or stopped fetching while a session's {@code Finished} arrived in time, and it resumes after the
 * session's deadline. Found by the fault harness ({@code faults/}): a wall-clock punctuation ran
 * before the backlog was fetched and expired the session, and its accepted {@code Finished} was
 * then rejected {@code SESSION_ALREADY_ENDED}. The same store, a new processor: what a restored
 * task is.
 */
class DeviceSessionProcessorRestartTest {

  private static final long T0 = Instant.parse("2026-01-05T12:00:00Z").toEpochMilli();
  private static final Duration MAX_DURATION = Duration.ofMinutes(10);
  private static final Duration INTERVAL = Duration.ofSeconds(1);

  @TempDir Path dir;
  private MockProcessorContext<Void, Void> context;
  private ProcessorSupplier<String, DeviceEventReader.Read, Void, Void> supplier;
  private final List<StateStore> stores = new ArrayList<>();

  @BeforeEach
  void storesOfOneTask() {
    Properties config = new Properties();
    config.put(StreamsConfig.APPLICATION_ID_CONFIG, "restart-test");
    config.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
    context = new MockProcessorContext<>(config, new TaskId(0, 0), dir.toFile());
    SessionPolicy policy =
        new SessionPolicy(Duration.ofHours(1), MAX_DURATION, 100, Duration.ofDays(1));
    supplier =
        DeviceSessionProcessor.supplier(
            policy, Duration.ofDays(1), INTERVAL, 1_000, false, 1 << 20);
    for (StoreBuilder<?> builder : supplier.stores()) {
      StateStore store = builder.withLoggingDisabled().build();
      store.init(context.getStateStoreContext(), store);
      context.addStateStore(store);
      stores.add(store);
    }
  }

  @AfterEach
  void closeStores() {
    stores.forEach(StateStore::close);
  }

  @Test
  void aTaskStartingOnABacklogClosesTheSessionWhoseFinishedIsQueued() {
    startedProcessedThenTaskDown();

    long restart = T0 + MAX_DURATION.plusMinutes(5).toMillis();
    Processor<String, DeviceEventReader.Read, Void, Void> restored = start(restart);
    punctuate(restart + INTERVAL.toMillis());
    assertThat(sessionEventTypes()).isEmpty();

    long finishedArrived = T0 + Duration.ofMinutes(5).toMillis();
    context.setCurrentSystemTimeMs(restart + 2 * INTERVAL.toMillis());
    context.setCurrentStreamTimeMs(finishedArrived);
    restored.process(record(DeviceEventType.Finished, "f", finishedArrived));

    assertThat(sessionEventTypes()).containsExactly("Closed");
  }

  @Test
  void aTaskStartingOnAnIdlePartitionExpiresTheSessionOnceSettled() {
    startedProcessedThenTaskDown();

    long restart = T0 + MAX_DURATION.plusMinutes(5).toMillis();
    start(restart);
    punctuate(restart + INTERVAL.toMillis());
    assertThat(sessionEventTypes()).isEmpty();

    punctuate(restart + Duration.ofSeconds(31).toMillis());
    assertThat(sessionEventTypes()).containsExactly("Expired");
  }

  @Test
  void aStallInABacklogDoesNotExpireTheSessionWhoseFinishedIsQueued() {
    // Processing a backlog: the Started arrived at T0 and is processed 15 min later.
    long processing = T0 + MAX_DURATION.plusMinutes(5).toMillis();
    Processor<String, DeviceEventReader.Read, Void, Void> running = start(processing);
    context.setCurrentStreamTimeMs(T0);
    running.process(record(DeviceEventType.Started, "s", T0));
    context.resetForwards();

    // Then no record for 20 s (a rebalance, a broker failing over), the Finished still queued.
    punctuate(processing + Duration.ofSeconds(20).toMillis());
    assertThat(sessionEventTypes()).isEmpty();

    long finishedArrived = T0 + Duration.ofMinutes(5).toMillis();
    context.setCurrentStreamTimeMs(finishedArrived);
    running.process(record(DeviceEventType.Finished, "f", finishedArrived));
    assertThat(sessionEventTypes()).containsExactly("Closed");
  }

  @Test
  void aCopyIsStillADuplicateAfterTheIndexIsLostWithItsTask() throws Exception {
    Processor<String, byte[], Void, Void> dedup = dedup();
    start(T0);
    context.setCurrentStreamTimeMs(T0);
    dedup.process(raw("s", "R", T0));
    assertThat(forwardedTo(Names.DEVICE_SESSION)).hasSize(1);
    Processor<String, DeviceEventReader.Read, Void, Void> sessions = start(T0);
    sessions.process(firstForwardedRead());
    context.resetForwards();

    // The index has no changelog: a task that starts without it (a restore, a promoted standby)
    // builds it again from device-state-store when device-session starts.
    replaceIndexWithAnEmptyOne();
    start(T0 + 1_000);
    Processor<String, byte[], Void, Void> restarted = dedup();
    restarted.process(raw("s", "R", T0 + 1_000));
    restarted.process(raw("s", "OTHER", T0 + 2_000));

    assertThat(forwardedTo(Names.DEVICE_SESSION)).as("neither copy goes on").isEmpty();
    assertThat(forwardedTo(Names.rejections(Names.DEVICE_EVENT_DEDUP)))
        .as("the copy under another sessionRef is a conflict")
        .hasSize(1);
  }

  private Processor<String, byte[], Void, Void> dedup() {
    Processor<String, byte[], Void, Void> dedup =
        new DeviceEventDedupProcessor(Duration.ofDays(1), Duration.ofDays(1), 1 << 20);
    dedup.init(context);
    return dedup;
  }

  private void replaceIndexWithAnEmptyOne() throws IOException {
    StateStore old =
        stores.stream().filter(s -> s.name().equals(Names.DEVICE_EVENT_INDEX)).findFirst().get();
    old.close();
    stores.remove(old);
    try (var files = java.nio.file.Files.walk(dir)) {
      files
          .filter(f -> f.getFileName().toString().startsWith(Names.DEVICE_EVENT_INDEX))
          .sorted(java.util.Comparator.reverseOrder())
          .forEach(f -> deleteTree(f));
    }
    for (StoreBuilder<?> builder : supplier.stores()) {
      if (builder.name().equals(Names.DEVICE_EVENT_INDEX)) {
        StateStore store = builder.withLoggingDisabled().build();
        store.init(context.getStateStoreContext(), store);
        context.addStateStore(store);
        stores.add(store);
        @SuppressWarnings("unchecked")
        var index =
            (org.apache.kafka.streams.state.WindowStore<
                    org.apache.kafka.common.utils.Bytes, byte[]>)
                store;
        try (var all = index.all()) {
          assertThat(all.hasNext()).as("the new index starts empty").isFalse();
        }
      }
    }
  }

  private static void deleteTree(Path path) {
    try (var files = java.nio.file.Files.walk(path)) {
      files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private List<Record<?, ?>> forwardedTo(String child) {
    List<Record<?, ?>> records = new ArrayList<>();
    for (var forward : context.forwarded()) {
      if (child.equals(forward.childName().orElse(""))) {
        records.add(forward.record());
      }
    }
    return records;
  }

  @SuppressWarnings("unchecked")
  private Record<String, DeviceEventReader.Read> firstForwardedRead() {
    return (Record<String, DeviceEventReader.Read>)
        (Record<?, ?>) forwardedTo(Names.DEVICE_SESSION).get(0);
  }

  private static Record<String, byte[]> raw(String eventId, String ref, long arrivedAt) {
    DeviceEvent event = record(DeviceEventType.Started, eventId, arrivedAt).value().event();
    DeviceEvent withRef =
        new DeviceEvent(
            event.deviceId(),
            event.eventId(),
            event.type(),
            Instant.ofEpochMilli(T0).atOffset(ZoneOffset.UTC),
            ref,
            null,
            event.receivedAt());
    RecordHeaders headers = new RecordHeaders();
    headers.add(
        CloudEventHeaders.SOURCE,
        CloudEventHeaders.deviceSource("d").getBytes(java.nio.charset.StandardCharsets.UTF_8));
    headers.add(CloudEventHeaders.ID, eventId.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    try {
      return new Record<>("d", Json.mapper().writeValueAsBytes(withRef), arrivedAt, headers);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private void startedProcessedThenTaskDown() {
    Processor<String, DeviceEventReader.Read, Void, Void> first = start(T0);
    context.setCurrentStreamTimeMs(T0);
    first.process(record(DeviceEventType.Started, "s", T0));
    assertThat(sessionEventTypes()).containsExactly("Opened");
    context.resetForwards();
  }

  private Processor<String, DeviceEventReader.Read, Void, Void> start(long wallClock) {
    context.setCurrentSystemTimeMs(wallClock);
    Processor<String, DeviceEventReader.Read, Void, Void> processor = supplier.get();
    processor.init(context);
    return processor;
  }

  /** Runs the punctuator the latest processor scheduled, at {@code wallClock}. */
  private void punctuate(long wallClock) {
    List<CapturedPunctuator> scheduled = context.scheduledPunctuators();
    context.setCurrentSystemTimeMs(wallClock);
    scheduled.get(scheduled.size() - 1).getPunctuator().punctuate(wallClock);
  }

  private static Record<String, DeviceEventReader.Read> record(
      DeviceEventType type, String eventId, long arrivedAt) {
    DeviceEvent event =
        new DeviceEvent(
            "d",
            eventId,
            type,
            Instant.ofEpochMilli(arrivedAt).atOffset(ZoneOffset.UTC),
            "R",
            null,
            Instant.ofEpochMilli(arrivedAt));
    return new Record<>("d", new DeviceEventReader.Read(event, new byte[0], 0L), arrivedAt);
  }

  private List<String> sessionEventTypes() {
    List<String> types = new ArrayList<>();
    for (var forward : context.forwarded()) {
      if (Names.DEVICE_SESSIONS_SINK.equals(forward.childName().orElse(""))) {
        Object value = forward.record().value();
        types.add(((DeviceSessionEvent) value).type().name());
      }
    }
    return types;
  }
}
