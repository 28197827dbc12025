package dev.turnstile.faults;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The checker's findings. An accepted input is an HTTP event answered {@code 2xx} or a billing
 * message completed on Service Bus (sent and neither left on the queue nor dead-lettered). Its
 * effect: a {@code Started}'s {@code Opened}; a {@code Finished}'s {@code Closed} (with the
 * duration the ledger computes); an abandoned session's {@code Expired}; a billing message's merge
 * result; a closed and billed session's one settled record on {@code post-merge.v1}.
 *
 * @param lost effects missing for accepted inputs
 * @param doubled effects beyond the one each accepted input must have: a second {@code Opened},
 *     {@code Closed} or {@code Expired}, a merge result too many or published twice, a second
 *     settled record, or a rejection of an input whose effect is already there
 * @param lostAtBridge accepted inputs with no copy in their raw topic (a subset of the causes of
 *     {@code lost}: the bridge answered before Kafka had the record)
 * @param wrong effects present with a value the ledger disagrees with (a duration, a settled
 *     session's figures)
 * @param unexplained effects with no accepted input behind them: an unknown reference, an event
 *     never answered {@code 2xx}, a billing message in the raw topic that Service Bus dead-lettered
 *     (relayed, then not completed), a superseded session, an {@code Expired} of a session whose
 *     {@code Finished} was accepted, a rejection of an input that had no other effect
 * @param problems the first problems found, for a human
 */
record Verdict(
    long httpEventsAccepted,
    long billingAccepted,
    long sessions,
    long lost,
    long doubled,
    long lostAtBridge,
    long wrong,
    long unexplained,
    long expectedDurationMillis,
    long closedDurationMillis,
    BigDecimal expectedKwh,
    BigDecimal settledKwh,
    BigDecimal expectedDollars,
    BigDecimal settledDollars,
    Map<String, Long> rejectedByReason,
    Map<String, Long> recordsByTopic,
    List<String> problems) {

  private static final int MAX_PROBLEMS = 25;

  boolean exactlyOnce() {
    return lost == 0
        && doubled == 0
        && wrong == 0
        && unexplained == 0
        && expectedDurationMillis == closedDurationMillis
        && expectedKwh.compareTo(settledKwh) == 0
        && expectedDollars.compareTo(settledDollars) == 0;
  }

  /** Holds the outputs' {@code effects} against the {@code ledger}. */
  static Verdict judge(
      Ledger ledger,
      Map<String, Effects> effects,
      Set<String> deadLetteredBilling,
      Map<String, Long> rejectedByReason,
      Map<String, Long> recordsByTopic,
      long closedDurationMillis,
      BigDecimal settledKwh,
      BigDecimal settledDollars) {
    Tally t = new Tally();
    for (Ledger.Session s : ledger.sessions()) {
      Effects e = effects.getOrDefault(s.sessionRef, new Effects());
      boolean billing =
          s.billed() && s.billingSent && !deadLetteredBilling.contains(s.billingMessageId());
      t.judge(s, e, billing);
    }
    for (Map.Entry<String, Effects> entry : effects.entrySet()) {
      if (ledger.session(entry.getKey()) == null) {
        t.unexplained++;
        t.problem("effects without any input sent: " + entry.getKey());
      }
    }
    return new Verdict(
        t.httpAccepted,
        t.billingAccepted,
        ledger.sessions().size(),
        t.lost,
        t.doubled,
        t.lostAtBridge,
        t.wrong,
        t.unexplained,
        t.expectedDuration,
        closedDurationMillis,
        t.expectedKwh,
        settledKwh,
        t.expectedDollars,
        settledDollars,
        Map.copyOf(rejectedByReason),
        Map.copyOf(recordsByTopic),
        List.copyOf(t.problems));
  }

  /** Running counts while judging, one session at a time. */
  private static final class Tally {
    long httpAccepted;
    long billingAccepted;
    long lost;
    long doubled;
    long lostAtBridge;
    long wrong;
    long unexplained;
    long expectedDuration;
    BigDecimal expectedKwh = BigDecimal.ZERO;
    BigDecimal expectedDollars = BigDecimal.ZERO;
    final List<String> problems = new ArrayList<>();

    void judge(Ledger.Session s, Effects e, boolean billing) {
      String ref = s.sessionRef;
      if (s.startAccepted) {
        httpAccepted++;
        once(ref, "Opened", e.opened, e.rawStarted);
      } else {
        unaccepted(ref, "Started", e.opened);
      }
      if (s.finishes()) {
        if (s.finishAccepted) {
          httpAccepted++;
          expectedDuration += s.durationMillis();
          once(ref, "Closed", e.closed, e.rawFinished);
          if (e.durationWrong) {
            wrong++;
            problem(ref + ": Closed with a duration other than " + s.durationMillis() + " ms");
          }
        } else {
          unaccepted(ref, "Finished", e.closed);
        }
        if (s.finishAccepted && e.expired > 0) {
          // Its Finished was accepted, so it must close, never expire: an Expired is either the
          // Closed lost (counted above) or a second end of the session.
          unexplained += e.expired;
          problem(ref + ": Expired although its Finished was accepted");
        }
      } else if (s.startAccepted) {
        once(ref, "Expired", e.expired, 1);
      }
      if (e.superseded > 0) {
        unexplained += e.superseded;
        problem(ref + ": " + e.superseded + " Superseded (every session has its own reference)");
      }
      judgeMerge(s, e, billing);
      judgeRejections(s, e);
    }

    private void judgeMerge(Ledger.Session s, Effects e, boolean billing) {
      String ref = s.sessionRef;
      int sessionPatches = e.closed > 0 ? 1 : 0;
      // Sent, dead-lettered by Service Bus, yet in the raw topic: relayed, then not completed.
      boolean relayedThenDeadLettered = s.billed() && s.billingSent && !billing && e.rawBilling > 0;
      if (billing) {
        billingAccepted++;
        if (e.rawBilling == 0) {
          lostAtBridge++;
          problem(ref + ": billing completed on Service Bus but not in the raw topic");
        }
      } else if (relayedThenDeadLettered) {
        // One effect of an input Service Bus reports as not consumed: unexplained, once; its
        // merge and settlement are then held to exactly once like any other.
        unexplained++;
        problem(ref + ": billing relayed to Kafka although Service Bus dead-lettered it");
      }
      boolean billingEffect = billing || relayedThenDeadLettered;
      int expectedResults = sessionPatches + (billingEffect ? 1 : 0);
      count(ref, "merge results", e.mergeResults, expectedResults);
      if (e.distinctMergeResults() < e.mergeResults) {
        doubled += e.mergeResults - e.distinctMergeResults();
        problem(ref + ": the same merge result published more than once");
      }
      boolean settles = billingEffect && e.closed > 0;
      if (settles) {
        expectedKwh = expectedKwh.add(s.kwhTotal);
        expectedDollars = expectedDollars.add(s.dollars);
      }
      count(ref, "settled records", e.settled, settles ? 1 : 0);
      if (e.settledWrong) {
        wrong++;
        problem(ref + ": settled with figures other than the ledger's");
      }
    }

    /** A rejection where the input also had its effect is a second effect; else unexplained. */
    private void judgeRejections(Ledger.Session s, Effects e) {
      if (e.rejected == 0) {
        return;
      }
      boolean effectsComplete = e.opened > 0 && (!s.finishes() || e.closed > 0);
      if (effectsComplete) {
        doubled += e.rejected;
      } else {
        unexplained += e.rejected;
      }
      problem(s.sessionRef + ": " + e.rejected + " rejection(s) on rejected-events.v1");
    }

    private void once(String ref, String effect, int count, int rawCopies) {
      if (count == 0 && rawCopies == 0) {
        lostAtBridge++;
      }
      count(ref, effect, count, 1);
    }

    private void count(String ref, String effect, int count, int expected) {
      if (count < expected) {
        lost += expected - count;
        problem(ref + ": " + count + " " + effect + ", expected " + expected + " (lost)");
      } else if (count > expected) {
        doubled += count - expected;
        problem(ref + ": " + count + " " + effect + ", expected " + expected + " (doubled)");
      }
    }

    private void unaccepted(String ref, String event, int effects) {
      if (effects > 0) {
        unexplained += effects;
        problem(ref + ": " + event + " never answered 2xx but has " + effects + " effect(s)");
      }
    }

    void problem(String text) {
      if (problems.size() < MAX_PROBLEMS) {
        problems.add(text);
      }
    }
  }
}
