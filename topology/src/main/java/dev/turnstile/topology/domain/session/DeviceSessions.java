package dev.turnstile.topology.domain.session;

import dev.turnstile.schemas.DeviceEvent;
import dev.turnstile.schemas.DeviceSessionEvent;
import dev.turnstile.schemas.DeviceSessionEventType;
import dev.turnstile.schemas.RejectionReason;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The session aggregate (docs/design.md, "Device sessions"): the sessions of one device that share
 * a slot, either the device's anonymous sessions (events without a {@code sessionRef}) or the
 * session of one {@code (device, sessionRef)}, as multi-connector stations run them. Events arrive
 * deduplicated but late and out of order; this class decides what they mean. The rules of one slot
 * never read another's, but for one bound: early {@code Finished} events held per device, which the
 * caller counts across slots ({@code heldElsewhere}).
 *
 * <ul>
 *   <li>{@code Started} opens a session, keyed by its {@code sessionRef} when the device sent one
 *       (multi-connector stations run overlapping sessions), else the device's single anonymous
 *       session. A second {@code Started} without {@code sessionRef} closes the open anonymous
 *       session as {@code Superseded}; with a {@code sessionRef} that is already open it is
 *       rejected ({@code SESSION_ALREADY_OPEN}).
 *   <li>{@code Finished} closes the matching open session; one whose device time precedes the
 *       session's start is rejected ({@code FINISHED_BEFORE_STARTED}) and the session stays open.
 *       With no matching open session it is held for the reorder grace and matched when its {@code
 *       Started} comes; otherwise rejected at the grace's end ({@code FINISHED_WITHOUT_STARTED}).
 *   <li>Open sessions expire {@code maxSessionDuration} after their {@code Started} arrived.
 *   <li>Events for a session reference that already ended are rejected ({@code
 *       SESSION_ALREADY_ENDED}).
 * </ul>
 *
 * <p>Not thread-safe; one instance handles one device's events in order.
 */
public final class DeviceSessions {

  private static final String ANONYMOUS = "";

  private final SessionPolicy policy;
  private final Map<String, DeviceSession> open = new LinkedHashMap<>();
  private final List<HeldFinish> held = new ArrayList<>();
  private final EndedSessions ended;
  private final int heldElsewhere;

  private DeviceSessions(
      SessionPolicy policy,
      DeviceSessionsSnapshot snapshot,
      EndedSessions ended,
      int heldElsewhere) {
    this.policy = Objects.requireNonNull(policy, "policy");
    this.ended = Objects.requireNonNull(ended, "ended");
    this.heldElsewhere = heldElsewhere;
    snapshot.open().forEach(session -> open.put(refKey(session.sessionRef()), session));
    held.addAll(snapshot.held());
  }

  /**
   * Rebuilds a device's aggregate from its stored form.
   *
   * @param ended this device's ended session references
   */
  public static DeviceSessions restore(
      SessionPolicy policy, DeviceSessionsSnapshot snapshot, EndedSessions ended) {
    return restore(policy, snapshot, ended, 0);
  }

  /**
   * Rebuilds one slot's aggregate from its stored form.
   *
   * @param ended this slot's ended session references
   * @param heldElsewhere early {@code Finished} events the device holds in its other slots, which
   *     count toward {@link SessionPolicy#maxHeldFinishesPerDevice()}
   */
  public static DeviceSessions restore(
      SessionPolicy policy,
      DeviceSessionsSnapshot snapshot,
      EndedSessions ended,
      int heldElsewhere) {
    return new DeviceSessions(
        policy,
        snapshot == null ? DeviceSessionsSnapshot.EMPTY : snapshot,
        ended,
        Math.max(0, heldElsewhere));
  }

  /** The stored form of the current state. */
  public DeviceSessionsSnapshot snapshot() {
    return new DeviceSessionsSnapshot(new ArrayList<>(open.values()), new ArrayList<>(held));
  }

  /**
   * Applies one deduplicated event.
   *
   * @param event the event; its {@code deviceId} is this aggregate's device
   * @param arrivedAtMillis arrival time (epoch ms, the record timestamp set by the bridge)
   */
  public Outcome apply(DeviceEvent event, long arrivedAtMillis) {
    Outcome outcome = Outcome.collecting();
    // A switch expression, not a statement: a new DeviceEventType does not compile until its rule
    // is chosen here, where a statement would silently ignore it.
    Rule rule =
        switch (event.type()) {
          case Started -> this::start;
          case Finished -> this::finish;
        };
    rule.apply(event, arrivedAtMillis, outcome);
    return outcome;
  }

  /** What one type of event does to the device's sessions. */
  @FunctionalInterface
  private interface Rule {
    void apply(DeviceEvent event, long arrivedAtMillis, Outcome outcome);
  }

  /**
   * Ends what is due at wall-clock time {@code nowMillis}: held {@code Finished} events past the
   * reorder grace are rejected, sessions open longer than the maximum duration expire.
   */
  public Outcome expire(long nowMillis) {
    Outcome outcome = Outcome.collecting();
    for (Iterator<HeldFinish> it = held.iterator(); it.hasNext(); ) {
      HeldFinish h = it.next();
      if (graceEnd(h) <= nowMillis) {
        it.remove();
        reject(
            outcome,
            RejectionReason.FINISHED_WITHOUT_STARTED,
            "no Started arrived within the reorder grace of " + policy.reorderGrace(),
            h.event());
      }
    }
    for (Iterator<DeviceSession> it = open.values().iterator(); it.hasNext(); ) {
      DeviceSession session = it.next();
      if (expiry(session) <= nowMillis) {
        it.remove();
        outcome.sessionEvents().add(session.expired());
        remember(session.sessionRef(), DeviceSessionEventType.Expired);
      }
    }
    return outcome;
  }

  /** The earliest wall-clock time (epoch ms) at which {@link #expire} has something to do. */
  public OptionalLong nextDeadline() {
    long next = Long.MAX_VALUE;
    for (HeldFinish h : held) {
      next = Math.min(next, graceEnd(h));
    }
    for (DeviceSession session : open.values()) {
      next = Math.min(next, expiry(session));
    }
    return next == Long.MAX_VALUE ? OptionalLong.empty() : OptionalLong.of(next);
  }

  private void start(DeviceEvent started, long arrivedAtMillis, Outcome outcome) {
    String key = refKey(started.sessionRef());
    Optional<DeviceSessionEventType> endedBefore = endedSession(started.sessionRef());
    if (endedBefore.isPresent()) {
      reject(
          outcome,
          RejectionReason.SESSION_ALREADY_ENDED,
          "session " + started.sessionRef() + " already ended (" + endedBefore.get() + ")",
          started);
      return;
    }
    DeviceSession current = open.get(key);
    if (current != null && started.sessionRef() != null) {
      reject(
          outcome,
          RejectionReason.SESSION_ALREADY_OPEN,
          "session "
              + started.sessionRef()
              + " is already open, started by event "
              + current.startEventId(),
          started);
      return;
    }
    if (current != null) {
      open.remove(key);
      outcome.sessionEvents().add(current.superseded(started.eventId()));
    }
    DeviceSession session = DeviceSession.open(started, arrivedAtMillis);
    open.put(key, session);
    outcome.sessionEvents().add(session.opened());
    matchHeldFinish(session, outcome);
  }

  private void matchHeldFinish(DeviceSession session, Outcome outcome) {
    for (Iterator<HeldFinish> it = held.iterator(); it.hasNext(); ) {
      HeldFinish h = it.next();
      if (Objects.equals(h.event().sessionRef(), session.sessionRef())) {
        it.remove();
        close(session, h.event(), outcome);
        return;
      }
    }
  }

  private void finish(DeviceEvent finished, long arrivedAtMillis, Outcome outcome) {
    Optional<DeviceSessionEventType> endedBefore = endedSession(finished.sessionRef());
    if (endedBefore.isPresent()) {
      reject(
          outcome,
          RejectionReason.SESSION_ALREADY_ENDED,
          "session " + finished.sessionRef() + " already ended (" + endedBefore.get() + ")",
          finished);
      return;
    }
    DeviceSession session = open.get(refKey(finished.sessionRef()));
    if (session != null) {
      close(session, finished, outcome);
      return;
    }
    if (finished.sessionRef() != null && isHeld(finished.sessionRef())) {
      reject(
          outcome,
          RejectionReason.FINISHED_ALREADY_RECEIVED,
          "a Finished for session " + finished.sessionRef() + " is already waiting for its Started",
          finished);
      return;
    }
    if (heldElsewhere + held.size() >= policy.maxHeldFinishesPerDevice()) {
      reject(
          outcome,
          RejectionReason.REORDER_BUFFER_FULL,
          "the device already holds "
              + (heldElsewhere + held.size())
              + " Finished events waiting for their Started",
          finished);
      return;
    }
    held.add(new HeldFinish(finished, arrivedAtMillis));
  }

  private void close(DeviceSession session, DeviceEvent finished, Outcome outcome) {
    Optional<DeviceSessionEvent> closed = session.close(finished);
    if (closed.isEmpty()) {
      reject(
          outcome,
          RejectionReason.FINISHED_BEFORE_STARTED,
          "Finished at "
              + finished.occurredAt()
              + " precedes the session's start at "
              + session.startedAt(),
          finished);
      return;
    }
    open.remove(refKey(session.sessionRef()));
    outcome.sessionEvents().add(closed.get());
    remember(session.sessionRef(), DeviceSessionEventType.Closed);
  }

  private boolean isHeld(String sessionRef) {
    return held.stream().anyMatch(h -> sessionRef.equals(h.event().sessionRef()));
  }

  private Optional<DeviceSessionEventType> endedSession(String sessionRef) {
    return sessionRef == null ? Optional.empty() : ended.outcome(sessionRef);
  }

  private void remember(String sessionRef, DeviceSessionEventType outcome) {
    if (sessionRef != null) {
      ended.remember(sessionRef, outcome);
    }
  }

  private long graceEnd(HeldFinish h) {
    return saturatedAdd(h.arrivedAtMillis(), policy.reorderGrace().toMillis());
  }

  private long expiry(DeviceSession session) {
    return saturatedAdd(session.openedAtMillis(), policy.maxSessionDuration().toMillis());
  }

  private static long saturatedAdd(long a, long b) {
    long sum = a + b;
    return ((a ^ sum) & (b ^ sum)) < 0 ? Long.MAX_VALUE : sum;
  }

  private static void reject(
      Outcome outcome, RejectionReason reason, String detail, DeviceEvent event) {
    outcome.rejections().add(new Rejection(reason, detail, event));
  }

  private static String refKey(String sessionRef) {
    return sessionRef == null ? ANONYMOUS : sessionRef;
  }
}
