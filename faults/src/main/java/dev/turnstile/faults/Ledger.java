package dev.turnstile.faults;

import java.math.BigDecimal;
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What the harness sent and what was accepted: one entry per charging session, keyed by its {@code
 * sessionRef} (unique across the run; also the merge key). The event ids follow from the reference,
 * as {@code DeviceEventRequest} builds them: {@code <ref>-started}, {@code <ref>-finished}, and the
 * billing message's {@code messageId} {@code billing-<ref>}.
 *
 * <p>An HTTP event counts as accepted once the bridge answered it {@code 2xx} ({@code 202}, or
 * {@code 200 duplicate}); a billing message once the Service Bus double counted its {@code
 * complete}, which the checker takes from the double at the end (the bridge completes only after
 * Kafka's ack).
 */
final class Ledger {

  /** Where a session comes from. */
  enum Origin {
    /** A row of the EV dataset, replayed. */
    REPLAY,
    /** A generated session of a synthetic station. */
    GENERATED,
    /** A {@code Started} that never finishes: expired by the topology's punctuator. */
    ABANDONED,
    /** One of the six sessions sent after a fault to see the pipeline heal. */
    CANARY
  }

  /** One session: its expected figures and what was accepted of it. */
  static final class Session {
    final Origin origin;
    final String deviceId;
    final String sessionRef;
    final long startedAtMillis;
    final long endedAtMillis;
    final BigDecimal kwhTotal;
    final BigDecimal dollars;

    /** The dataset row a replayed session came from, else -1. */
    final int row;

    volatile boolean startAccepted;
    volatile boolean finishAccepted;
    volatile boolean billingSent;

    Session(
        Origin origin,
        String deviceId,
        String sessionRef,
        long startedAtMillis,
        long endedAtMillis,
        BigDecimal kwhTotal,
        BigDecimal dollars,
        int row) {
      this.origin = origin;
      this.deviceId = deviceId;
      this.sessionRef = sessionRef;
      this.startedAtMillis = startedAtMillis;
      this.endedAtMillis = endedAtMillis;
      this.kwhTotal = kwhTotal;
      this.dollars = dollars;
      this.row = row;
    }

    boolean finishes() {
      return origin != Origin.ABANDONED;
    }

    boolean billed() {
      return kwhTotal != null;
    }

    long durationMillis() {
      return endedAtMillis - startedAtMillis;
    }

    String startEventId() {
      return sessionRef + "-started";
    }

    String finishEventId() {
      return sessionRef + "-finished";
    }

    String billingMessageId() {
      return "billing-" + sessionRef;
    }
  }

  private final Map<String, Session> sessions = new ConcurrentHashMap<>();
  private final AtomicLong requests = new AtomicLong();
  private final AtomicLong resends = new AtomicLong();
  private final AtomicLong answeredDuplicate = new AtomicLong();
  private final AtomicLong answeredUnavailable = new AtomicLong();
  private final AtomicLong transportErrors = new AtomicLong();
  private final AtomicLong refused = new AtomicLong();
  private final AtomicLong httpAccepted = new AtomicLong();
  private final AtomicLong billingSent = new AtomicLong();

  void add(Session session) {
    if (sessions.putIfAbsent(session.sessionRef, session) != null) {
      throw new IllegalStateException("session reference used twice: " + session.sessionRef);
    }
  }

  Session session(String sessionRef) {
    return sessions.get(sessionRef);
  }

  Collection<Session> sessions() {
    return sessions.values();
  }

  void countRequest() {
    requests.incrementAndGet();
  }

  void countResend() {
    resends.incrementAndGet();
  }

  void countDuplicateAnswer() {
    answeredDuplicate.incrementAndGet();
  }

  void countUnavailable() {
    answeredUnavailable.incrementAndGet();
  }

  void countTransportError() {
    transportErrors.incrementAndGet();
  }

  void countRefused() {
    refused.incrementAndGet();
  }

  long requests() {
    return requests.get();
  }

  long resends() {
    return resends.get();
  }

  long answeredDuplicate() {
    return answeredDuplicate.get();
  }

  long answeredUnavailable() {
    return answeredUnavailable.get();
  }

  long transportErrors() {
    return transportErrors.get();
  }

  /** Requests answered with a status that is neither 2xx nor 503: the harness sent bad input. */
  long refused() {
    return refused.get();
  }

  /** Records a 2xx answer to the session's {@code Started} or {@code Finished}. */
  void accepted(Session session, boolean started) {
    synchronized (session) {
      boolean first = started ? !session.startAccepted : !session.finishAccepted;
      if (started) {
        session.startAccepted = true;
      } else {
        session.finishAccepted = true;
      }
      if (first) {
        httpAccepted.incrementAndGet();
      }
    }
  }

  /** Records that the session's billing message was handed to Service Bus. */
  void billingSent(Session session) {
    session.billingSent = true;
    billingSent.incrementAndGet();
  }

  /** HTTP events answered 2xx so far. */
  long httpEventsAccepted() {
    return httpAccepted.get();
  }

  /** Billing messages handed to Service Bus so far. */
  long billingSent() {
    return billingSent.get();
  }
}
