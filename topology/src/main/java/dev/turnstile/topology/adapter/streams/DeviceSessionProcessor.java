package dev.turnstile.topology.adapter.streams;

import dev.turnstile.schemas.DeviceEvent;
import dev.turnstile.schemas.DeviceSessionEvent;
import dev.turnstile.schemas.Json;
import dev.turnstile.schemas.RejectionReason;
import dev.turnstile.schemas.TopicCatalogue;
import dev.turnstile.topology.adapter.streams.Rejections.Refusal;
import dev.turnstile.topology.domain.session.DeviceSessions;
import dev.turnstile.topology.domain.session.DeviceSessionsSnapshot;
import dev.turnstile.topology.domain.session.Outcome;
import dev.turnstile.topology.domain.session.Rejection;
import dev.turnstile.topology.domain.session.SessionPolicy;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.OptionalLong;
import java.util.Set;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.ProcessorSupplier;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;

/**
 * Runs each device's {@link DeviceSessions} aggregate on deduplicated device events and emits
 * session events and rejections.
 *
 * <p>State: {@code device-session-store} holds each device's snapshot; a {@link DeadlineIndex} in
 * memory, rebuilt from it when the task starts, indexes devices by their next deadline, so the
 * wall-clock punctuator reads only what is due instead of scanning every device. A punctuation
 * handles at most {@code maxDuePerPunctuation} devices; the rest wait for the next one, which keeps
 * each transaction short under exactly-once.
 *
 * <p>With {@code mergeClosedSessions}, each {@code Closed} event with a session reference is also
 * forwarded, the same record, to {@code session-merge-input}. Forwarding by child name keeps the
 * sink from seeing it twice and the merge child from seeing other session events.
 */
final class DeviceSessionProcessor
    implements Processor<String, DeviceEventReader.Read, String, Object> {

  private final SessionPolicy policy;
  private final Duration punctuateInterval;
  private final int maxDuePerPunctuation;
  private final boolean mergeClosedSessions;
  private final JsonSerde<DeviceSessionEvent> eventSerde =
      new JsonSerde<>(DeviceSessionEvent.class);
  private ProcessorContext<String, Object> context;
  private KeyValueStore<String, byte[]> sessions;
  private final DeadlineIndex deadlines = new DeadlineIndex();
  private RecentKeys ended;
  private final int maxStateBytes;
  private long lastProcessedWallClock;

  private DeviceSessionProcessor(
      SessionPolicy policy,
      Duration punctuateInterval,
      int maxDuePerPunctuation,
      boolean mergeClosedSessions,
      int maxStateBytes) {
    this.maxStateBytes = maxStateBytes;
    this.policy = policy;
    this.punctuateInterval = punctuateInterval;
    this.maxDuePerPunctuation = maxDuePerPunctuation;
    this.mergeClosedSessions = mergeClosedSessions;
  }

  /**
   * @param mergeClosedSessions forward closed sessions with a reference to {@code
   *     session-merge-input}, which must then be a child
   * @param maxStateBytes bound on one device's stored snapshot; an event that would grow it past
   *     the bound is rejected ({@code DEVICE_STATE_FULL}), so the changelog record stays writable
   */
  static ProcessorSupplier<String, DeviceEventReader.Read, String, Object> supplier(
      SessionPolicy policy,
      Duration punctuateInterval,
      int maxDuePerPunctuation,
      boolean mergeClosedSessions,
      int maxStateBytes) {
    // Values are the snapshot's SnapshotCodec bytes: written once per event, for the size bound
    // and the store alike.
    StoreBuilder<KeyValueStore<String, byte[]>> sessionStore =
        Stores.keyValueStoreBuilder(
            Stores.persistentKeyValueStore(Names.DEVICE_SESSION_STORE),
            Serdes.String(),
            Serdes.ByteArray());
    StoreBuilder<?> endedStore =
        RecentKeys.storeBuilder(Names.DEVICE_SESSION_ENDED_STORE, policy.endedSessionRetention());
    return new ProcessorSupplier<>() {
      @Override
      public Processor<String, DeviceEventReader.Read, String, Object> get() {
        return new DeviceSessionProcessor(
            policy, punctuateInterval, maxDuePerPunctuation, mergeClosedSessions, maxStateBytes);
      }

      @Override
      public Set<StoreBuilder<?>> stores() {
        return Set.of(sessionStore, endedStore);
      }
    };
  }

  @Override
  public void init(ProcessorContext<String, Object> context) {
    this.context = context;
    this.sessions = context.getStateStore(Names.DEVICE_SESSION_STORE);
    this.ended =
        new RecentKeys(
            context.getStateStore(Names.DEVICE_SESSION_ENDED_STORE),
            policy.endedSessionRetention());
    rebuildDeadlines();
    // A starting task (a restart, a migration after a kill or a fencing) has not fetched yet: it
    // counts as stalled from now, not as idle (see expireDue).
    lastProcessedWallClock = context.currentSystemTimeMs();
    context.schedule(punctuateInterval, PunctuationType.WALL_CLOCK_TIME, this::expireDue);
  }

  /** The index from the stored sessions: init runs after the task's state was restored. */
  private void rebuildDeadlines() {
    deadlines.clear();
    try (KeyValueIterator<String, byte[]> all = sessions.all()) {
      while (all.hasNext()) {
        KeyValue<String, byte[]> device = all.next();
        deadlines.set(device.key, load(device.key, device.value, 0).nextDeadline());
      }
    }
  }

  @Override
  public void process(Record<String, DeviceEventReader.Read> record) {
    DeviceEvent event = record.value().event();
    lastProcessedWallClock = context.currentSystemTimeMs();
    DeviceSessions aggregate = load(record.key(), record.timestamp());
    // What of this device fell due (arrival time) by stream time ends before its record applies,
    // whether or not a punctuation ran in between: the outcome depends on the input alone, so two
    // generations reprocessing the same raw topic agree (docs/changing-a-rule.md, "Determinism").
    long now = Math.max(record.timestamp(), context.currentStreamTimeMs());
    OptionalLong due = aggregate.nextDeadline();
    if (due.isPresent() && due.getAsLong() <= now) {
      emit(record.key(), aggregate.expire(now), now, null);
      save(record.key(), aggregate);
    }
    Outcome outcome = aggregate.apply(event, record.timestamp());
    DeviceSessionsSnapshot snapshot = aggregate.snapshot();
    byte[] stored = snapshot.isEmpty() ? null : SnapshotCodec.write(snapshot);
    int size = stored == null ? 0 : stored.length;
    if (size > maxStateBytes) {
      // Not saved: the device keeps the state it had, and its changelog record stays writable.
      reject(
          record,
          RejectionReason.DEVICE_STATE_FULL,
          "the device's session state would grow to "
              + size
              + " bytes, over topology.session.max-state-bytes="
              + maxStateBytes);
      return;
    }
    emit(record.key(), outcome, record.timestamp(), record);
    save(record.key(), aggregate, stored);
  }

  /**
   * Ends what is due. Deadlines are in arrival time. While records flow, "now" is stream time: a
   * topology working through a backlog must not reject a held {@code Finished} whose {@code
   * Started} is the next record, nor expire sessions whose {@code Finished} is queued behind. When
   * no record came for a while the task is either idle (stream time stands still there, so the wall
   * clock must take over) or stalled with a backlog it has not fetched yet (it just started, a
   * rebalance, a broker failing over, the process stopped). It cannot tell which from here, so for
   * the {@link #settlingPeriod()} after its last record (or its start) "now" stays stream time, and
   * only after it is the wall clock: a stall shorter than that never expires a session whose {@code
   * Finished} arrived in time; an idle partition expires that much later.
   */
  private void expireDue(long wallClock) {
    long quiet = Math.max(0, wallClock - lastProcessedWallClock);
    long streamTime = context.currentStreamTimeMs();
    long now =
        quiet >= settlingPeriod() || streamTime < 0 ? wallClock : Math.min(wallClock, streamTime);
    for (String deviceId : deadlines.takeDue(now, maxDuePerPunctuation)) {
      DeviceSessions aggregate = load(deviceId, Math.max(0, context.currentStreamTimeMs()));
      Outcome outcome = aggregate.expire(now);
      emit(deviceId, outcome, now, null);
      save(deviceId, aggregate);
    }
  }

  /**
   * How long a task without records counts as stalled rather than idle: three punctuations, and at
   * least 30 s, longer than a consumer takes to fetch again after a rebalance or a broker failover
   * on a loaded host. Expiry on an idle partition is late by at most this; sessions last hours.
   */
  private long settlingPeriod() {
    return Math.max(30_000, 3 * punctuateInterval.toMillis());
  }

  /**
   * @param arrival the arrival time that ended sessions are stamped with: the record's timestamp,
   *     or stream time in a punctuation so the window store does not drop the entry as too old
   */
  private DeviceSessions load(String deviceId, long arrival) {
    return load(deviceId, sessions.get(deviceId), arrival);
  }

  private DeviceSessions load(String deviceId, byte[] stored, long arrival) {
    return DeviceSessions.restore(
        policy, SnapshotCodec.read(stored), new WindowStoreEndedSessions(ended, deviceId, arrival));
  }

  private void save(String deviceId, DeviceSessions aggregate) {
    DeviceSessionsSnapshot snapshot = aggregate.snapshot();
    save(deviceId, aggregate, snapshot.isEmpty() ? null : SnapshotCodec.write(snapshot));
  }

  /**
   * @param stored the snapshot's stored bytes, or null when the device has nothing left to keep
   */
  private void save(String deviceId, DeviceSessions aggregate, byte[] stored) {
    if (stored == null) {
      sessions.delete(deviceId);
    } else {
      sessions.put(deviceId, stored);
    }
    deadlines.set(deviceId, aggregate.nextDeadline());
  }

  private void emit(
      String deviceId, Outcome outcome, long timestamp, Record<String, DeviceEventReader.Read> in) {
    for (DeviceSessionEvent event : outcome.sessionEvents()) {
      String type = event.type().name().toLowerCase(Locale.ROOT);
      Record<String, byte[]> out =
          new Record<>(
              deviceId,
              eventSerde.write(event),
              timestamp,
              OutputHeaders.cloudEvent(
                  TopicCatalogue.DEVICE_SESSIONS,
                  event.sessionId() + "/" + type,
                  "dev.turnstile.device-session." + type + ".v1",
                  deviceId,
                  Instant.ofEpochMilli(timestamp)));
      context.forward(out, Names.DEVICE_SESSIONS_SINK);
      if (mergeClosedSessions && SessionMergeInputProcessor.isMergeable(event)) {
        context.forward(out.withValue(event), Names.SESSION_MERGE_INPUT);
      }
    }
    for (Rejection rejection : outcome.rejections()) {
      Refusal refusal = new Refusal(Names.DEVICE_SESSION, rejection.reason(), rejection.detail());
      boolean fromThisRecord =
          in != null && rejection.event().eventId().equals(in.value().event().eventId());
      if (fromThisRecord) {
        Rejections.forwardInput(context, in, in.value().raw(), refusal);
      } else {
        Rejections.forwardHeld(
            context,
            deviceId,
            rejection.event().eventId(),
            Json.mapper().valueToTree(rejection.event()),
            refusal,
            timestamp);
      }
    }
  }

  private void reject(
      Record<String, DeviceEventReader.Read> record, RejectionReason reason, String detail) {
    Rejections.forwardInput(
        context, record, record.value().raw(), new Refusal(Names.DEVICE_SESSION, reason, detail));
  }
}
