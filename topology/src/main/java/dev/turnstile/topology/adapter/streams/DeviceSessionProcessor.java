package dev.turnstile.topology.adapter.streams;

import dev.turnstile.schemas.DeviceEvent;
import dev.turnstile.schemas.DeviceSessionEvent;
import dev.turnstile.schemas.DeviceSessionEventType;
import dev.turnstile.schemas.Json;
import dev.turnstile.schemas.RejectionReason;
import dev.turnstile.schemas.TopicCatalogue;
import dev.turnstile.topology.adapter.streams.Rejections.Refusal;
import dev.turnstile.topology.adapter.streams.TimedStore.Found;
import dev.turnstile.topology.domain.dedup.FirstSeen;
import dev.turnstile.topology.domain.session.DeviceSessions;
import dev.turnstile.topology.domain.session.EndedSessions;
import dev.turnstile.topology.domain.session.Outcome;
import dev.turnstile.topology.domain.session.Rejection;
import dev.turnstile.topology.domain.session.SessionPolicy;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.ProcessorSupplier;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.StoreBuilder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the {@link DeviceSessions} aggregate of each session slot on deduplicated device events,
 * emits session events and rejections, and remembers each event for dedup in the same write
 * (docs/design.md, "Device sessions" and "State and recovery").
 *
 * <p>A slot is one {@code (device, sessionRef)}, or the device's anonymous sessions ({@link
 * DeviceStateKeys}). An event of a slot reads and writes that slot's record only, which also
 * remembers the event's id: one read and one changelog record per event. An event without a {@code
 * sessionRef}, or one the rules reject, is also remembered on its own, since the anonymous slot
 * must not grow with the device's history.
 *
 * <p>In memory, rebuilt from {@code device-state-store} whenever a task starts, together with
 * {@code device-event-index} ({@link DeviceState#rebuildIndex}): a {@link DeadlineIndex} of slots
 * by their next deadline, so the wall-clock punctuator reads only what is due; and how many early
 * {@code Finished} events each device holds, for the per-device bound. A punctuation handles at
 * most {@code maxDuePerPunctuation} slots; the rest wait for the next one, which keeps each
 * transaction short under exactly-once.
 *
 * <p>With {@code mergeClosedSessions}, each {@code Closed} event with a session reference is also
 * forwarded to {@code session-merge-input}. Forwarding by child name keeps the sink from seeing it
 * twice and the merge child from seeing other session events.
 *
 * <p>Session outcomes are counted: {@code sessions-total}, group {@code
 * stream-turnstile-sessions-metrics}, tag {@code turnstile-sessions-id} = the outcome ({@code
 * Opened}, {@code Closed}, {@code Superseded}, {@code Expired}).
 */
final class DeviceSessionProcessor
    implements Processor<String, DeviceEventReader.Read, Void, Void> {

  private static final Logger LOG = LoggerFactory.getLogger(DeviceSessionProcessor.class);

  /** The serde of {@code device-sessions.v1} values. */
  static final JsonSerde<DeviceSessionEvent> EVENT_SERDE =
      new JsonSerde<>(DeviceSessionEvent.class);

  private final SessionPolicy policy;
  private final Duration dedupRetention;
  private final Duration punctuateInterval;
  private final int maxDuePerPunctuation;
  private final boolean mergeClosedSessions;
  private final int maxStateBytes;
  private final DeadlineIndex<Bytes> deadlines = new DeadlineIndex<>();
  private final Map<String, Integer> heldPerDevice = new HashMap<>();
  private final Map<DeviceSessionEventType, Sensor> outcomes =
      new EnumMap<>(DeviceSessionEventType.class);
  private ProcessorContext<Void, Void> context;
  private DeviceState state;
  private long lastProcessedWallClock;

  private DeviceSessionProcessor(
      SessionPolicy policy,
      Duration dedupRetention,
      Duration punctuateInterval,
      int maxDuePerPunctuation,
      boolean mergeClosedSessions,
      int maxStateBytes) {
    this.policy = policy;
    this.dedupRetention = dedupRetention;
    this.punctuateInterval = punctuateInterval;
    this.maxDuePerPunctuation = maxDuePerPunctuation;
    this.mergeClosedSessions = mergeClosedSessions;
    this.maxStateBytes = maxStateBytes;
  }

  /**
   * @param dedupRetention how long an event id is remembered (stream time)
   * @param mergeClosedSessions forward closed sessions with a reference to {@code
   *     session-merge-input}, which must then be a child
   * @param maxStateBytes bound on one slot's stored record; an event that would grow it past the
   *     bound is rejected ({@code DEVICE_STATE_FULL}), so the changelog record stays writable
   */
  static ProcessorSupplier<String, DeviceEventReader.Read, Void, Void> supplier(
      SessionPolicy policy,
      Duration dedupRetention,
      Duration punctuateInterval,
      int maxDuePerPunctuation,
      boolean mergeClosedSessions,
      int maxStateBytes) {
    Set<StoreBuilder<?>> stores =
        Set.of(DeviceState.storeBuilders(recordRetention(policy, dedupRetention), dedupRetention));
    return new ProcessorSupplier<>() {
      @Override
      public Processor<String, DeviceEventReader.Read, Void, Void> get() {
        return new DeviceSessionProcessor(
            policy,
            dedupRetention,
            punctuateInterval,
            maxDuePerPunctuation,
            mergeClosedSessions,
            maxStateBytes);
      }

      @Override
      public Set<StoreBuilder<?>> stores() {
        return stores;
      }
    };
  }

  /**
   * How long a slot's record is kept after its last write: long enough for the ids it remembers,
   * for the reference it ended, and for an open session to reach its expiry.
   */
  static Duration recordRetention(SessionPolicy policy, Duration dedupRetention) {
    Duration longest = dedupRetention;
    for (Duration d :
        new Duration[] {
          policy.endedSessionRetention(), policy.maxSessionDuration(), policy.reorderGrace()
        }) {
      longest = d.compareTo(longest) > 0 ? d : longest;
    }
    return longest;
  }

  @Override
  public void init(ProcessorContext<Void, Void> context) {
    this.context = context;
    this.state =
        DeviceState.of(
            context, recordRetention(policy, dedupRetention), dedupRetention, maxStateBytes);
    for (DeviceSessionEventType type : DeviceSessionEventType.values()) {
      outcomes.put(
          type,
          context
              .metrics()
              .addRateTotalSensor(
                  "turnstile-sessions", type.name(), "sessions", Sensor.RecordingLevel.INFO));
    }
    rebuild();
    // A starting task (a restart, a migration after a kill or a fencing) has not fetched yet: it
    // counts as stalled from now, not as idle (see expireDue).
    lastProcessedWallClock = context.currentSystemTimeMs();
    context.schedule(punctuateInterval, PunctuationType.WALL_CLOCK_TIME, this::expireDue);
  }

  /**
   * The index, the deadlines and the held counts from the stored records: init runs after restore.
   */
  private void rebuild() {
    deadlines.clear();
    heldPerDevice.clear();
    long began = System.nanoTime();
    long records =
        state.rebuildIndex(
            (key, found) -> {
              if (found.value() instanceof DeviceRecord.Slot slot) {
                DeviceStateKeys.Parsed parsed = DeviceStateKeys.parse(key);
                countHeld(parsed.deviceId(), slot.sessions().held().size());
                deadlines.set(
                    Bytes.wrap(key), aggregate(parsed, slot, found.stampMillis()).nextDeadline());
              }
            });
    LOG.info(
        "task {}: device-event-index rebuilt from {} records of {} in {} ms",
        context.taskId(),
        records,
        Names.DEVICE_STATE_STORE,
        (System.nanoTime() - began) / 1_000_000);
  }

  @Override
  public void process(Record<String, DeviceEventReader.Read> record) {
    DeviceEvent event = record.value().event();
    lastProcessedWallClock = context.currentSystemTimeMs();
    long now = Stamps.now(context, record);
    String device = record.key();
    byte[] key = DeviceStateKeys.slot(device, event.sessionRef());
    Optional<Found<DeviceRecord>> found = state.find(key, now);
    DeviceRecord.Slot before = slotOf(found);
    DeviceStateKeys.Parsed parsed = DeviceStateKeys.parse(key);
    SlotEnded ended = new SlotEnded(before, now);
    DeviceSessions aggregate = aggregate(parsed, before, ended, device);
    // What of this slot fell due (arrival time) by stream time ends before its record applies,
    // whether or not a punctuation ran in between: the outcome depends on the input alone, so two
    // generations reprocessing the same raw topic agree (docs/changing-a-rule.md, "Determinism").
    // It is saved in the record's one write.
    OptionalLong due = aggregate.nextDeadline();
    Outcome expired = due.isPresent() && due.getAsLong() <= now ? aggregate.expire(now) : null;
    Outcome outcome = aggregate.apply(event, record.timestamp());
    boolean rejectedHere =
        outcome.rejections().stream().anyMatch(r -> r.event().eventId().equals(event.eventId()));
    FirstSeen first = new FirstSeen(now, record.value().fingerprint());
    DeviceRecord.Remembered remembered =
        new DeviceRecord.Remembered(event.eventId(), first.fingerprint(), now);
    boolean inSlot = !rejectedHere && event.sessionRef() != null;
    DeviceRecord.Slot after =
        new DeviceRecord.Slot(before.events(), ended.value(), aggregate.snapshot());
    if (inSlot) {
      after = after.withEvent(remembered);
    }
    if (!after.equals(before)) {
      try {
        state.putSlot(key, after, inSlot ? remembered : null, now, found);
      } catch (TimedStore.TooLargeException e) {
        // Not saved: the slot keeps the state it had, and its changelog record stays writable.
        state.putLone(device, event.eventId(), first);
        reject(
            record,
            RejectionReason.DEVICE_STATE_FULL,
            "the session state of "
                + (event.sessionRef() == null ? "the device" : "session " + event.sessionRef())
                + " would grow to "
                + e.bytes
                + " bytes, over topology.session.max-state-bytes="
                + maxStateBytes);
        return;
      }
      slotChanged(key, device, before, after, aggregate);
    }
    if (!inSlot) {
      state.putLone(device, event.eventId(), first);
    }
    if (expired != null) {
      emit(device, expired, now, null);
    }
    emit(device, outcome, record.timestamp(), record);
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
    long stamp = Math.max(0, streamTime);
    for (Bytes key : deadlines.takeDue(now, maxDuePerPunctuation)) {
      Optional<Found<DeviceRecord>> found = state.find(key.get(), stamp);
      DeviceRecord.Slot before = slotOf(found);
      DeviceStateKeys.Parsed parsed = DeviceStateKeys.parse(key.get());
      SlotEnded ended = new SlotEnded(before, stamp);
      DeviceSessions aggregate = aggregate(parsed, before, ended, parsed.deviceId());
      Outcome outcome = aggregate.expire(now);
      DeviceRecord.Slot after =
          new DeviceRecord.Slot(before.events(), ended.value(), aggregate.snapshot());
      if (after.equals(before)) {
        deadlines.set(key, aggregate.nextDeadline());
        continue;
      }
      try {
        state.putSlot(key.get(), after, null, stamp, found);
      } catch (TimedStore.TooLargeException e) {
        throw new IllegalStateException("expiry only shrinks a slot, yet: " + e.getMessage(), e);
      }
      slotChanged(key.get(), parsed.deviceId(), before, after, aggregate);
      emit(parsed.deviceId(), outcome, now, null);
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

  private static DeviceRecord.Slot slotOf(Optional<Found<DeviceRecord>> found) {
    return found
        .map(Found::value)
        .filter(DeviceRecord.Slot.class::isInstance)
        .map(DeviceRecord.Slot.class::cast)
        .orElse(DeviceRecord.Slot.EMPTY);
  }

  /** The aggregate of a stored slot as the rebuild sees it: only its deadlines are asked. */
  private DeviceSessions aggregate(DeviceStateKeys.Parsed key, DeviceRecord.Slot slot, long stamp) {
    return aggregate(key, slot, new SlotEnded(slot, stamp), key.deviceId());
  }

  private DeviceSessions aggregate(
      DeviceStateKeys.Parsed key, DeviceRecord.Slot slot, SlotEnded ended, String device) {
    int heldHere = slot.sessions().held().size();
    int heldElsewhere = heldPerDevice.getOrDefault(device, 0) - heldHere;
    return DeviceSessions.restore(policy, slot.sessions(), ended, heldElsewhere);
  }

  private void slotChanged(
      byte[] key,
      String device,
      DeviceRecord.Slot before,
      DeviceRecord.Slot after,
      DeviceSessions aggregate) {
    countHeld(device, after.sessions().held().size() - before.sessions().held().size());
    deadlines.set(Bytes.wrap(key), aggregate.nextDeadline());
  }

  private void countHeld(String device, int delta) {
    if (delta != 0) {
      heldPerDevice.merge(device, delta, (a, b) -> a + b == 0 ? null : a + b);
    }
  }

  private void emit(
      String deviceId, Outcome outcome, long timestamp, Record<String, DeviceEventReader.Read> in) {
    for (DeviceSessionEvent event : outcome.sessionEvents()) {
      outcomes.get(event.type()).record();
      String type = event.type().name().toLowerCase(Locale.ROOT);
      Record<String, DeviceSessionEvent> out =
          new Record<>(
              deviceId,
              event,
              timestamp,
              OutputHeaders.cloudEvent(
                  TopicCatalogue.DEVICE_SESSIONS,
                  event.sessionId() + "/" + type,
                  "dev.turnstile.device-session." + type + ".v1",
                  deviceId,
                  Instant.ofEpochMilli(timestamp)));
      Outputs.DEVICE_SESSIONS.forward(context, out);
      if (mergeClosedSessions && SessionMergeInputProcessor.isMergeable(event)) {
        Outputs.CLOSED_SESSIONS.forward(context, out);
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

  /**
   * One slot's {@link EndedSessions}: its {@link DeviceRecord.Ended}, while it is within {@code
   * topology.session.ended-retention-ms}. A slot ends at most one referenced session (its own).
   */
  private final class SlotEnded implements EndedSessions {
    private DeviceRecord.Ended ended;
    private final long now;

    SlotEnded(DeviceRecord.Slot slot, long now) {
      this.ended = slot.ended();
      this.now = now;
    }

    @Override
    public Optional<DeviceSessionEventType> outcome(String sessionRef) {
      return Optional.ofNullable(value()).map(DeviceRecord.Ended::outcome);
    }

    @Override
    public void remember(String sessionRef, DeviceSessionEventType outcome) {
      ended = new DeviceRecord.Ended(outcome, now);
    }

    /** The ended marker to store: none once it is past the retention. */
    DeviceRecord.Ended value() {
      return ended != null && now - ended.atMillis() <= policy.endedSessionRetention().toMillis()
          ? ended
          : null;
    }
  }
}
