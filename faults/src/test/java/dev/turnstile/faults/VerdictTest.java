package dev.turnstile.faults;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The checker's judgement on hand-made ledgers and outputs: it passes a clean run and fails each
 * way a run can go wrong (an effect doubled, an effect lost, an effect nobody asked for).
 */
class VerdictTest {

  private static final long HOUR = 3_600_000;

  private final Ledger ledger = new Ledger();
  private final Map<String, Effects> effects = new HashMap<>();
  private long closedDuration;
  private BigDecimal settledKwh = BigDecimal.ZERO;
  private BigDecimal settledDollars = BigDecimal.ZERO;

  @BeforeEach
  void threeSessionsEachWithExactlyOneEffect() {
    for (String ref : new String[] {"s1", "s2", "s3"}) {
      Ledger.Session session = billedSession(ref);
      ledger.add(session);
      ledger.accepted(session, true);
      ledger.accepted(session, false);
      ledger.billingSent(session);
      Effects e = new Effects();
      e.rawStarted = 1;
      e.rawFinished = 1;
      e.rawBilling = 1;
      e.opened = 1;
      e.closed = 1;
      e.mergeResult(ref + "00000000000000a1");
      e.mergeResult(ref + "00000000000000b2");
      e.settled = 1;
      effects.put(ref, e);
      closedDuration += HOUR;
      settledKwh = settledKwh.add(session.kwhTotal);
      settledDollars = settledDollars.add(session.dollars);
    }
  }

  @Test
  void aCleanRunIsExactlyOnce() {
    Verdict verdict = judge();

    assertThat(verdict.exactlyOnce()).isTrue();
    assertThat(verdict.httpEventsAccepted()).isEqualTo(6);
    assertThat(verdict.billingAccepted()).isEqualTo(3);
    assertThat(verdict.problems()).isEmpty();
  }

  @Test
  void aSecondClosedIsDoubled() {
    effects.get("s2").closed = 2;
    closedDuration += HOUR;

    Verdict verdict = judge();

    assertThat(verdict.doubled()).isEqualTo(1);
    assertThat(verdict.lost()).isZero();
    assertThat(verdict.exactlyOnce()).isFalse();
    assertThat(verdict.problems()).anyMatch(p -> p.startsWith("s2: 2 Closed"));
  }

  @Test
  void aMergeResultPublishedTwiceIsDoubled() {
    effects.get("s1").mergeResult("s100000000000000a1");

    Verdict verdict = judge();

    // One merge result too many, and that one is a copy of an earlier id: counted once each.
    assertThat(verdict.doubled()).isEqualTo(2);
    assertThat(verdict.exactlyOnce()).isFalse();
  }

  @Test
  void anAcceptedFinishedWithoutItsClosedIsLost() {
    // The Closed is missing, and with it the session's merge patch and the settled record.
    Effects s3 = new Effects();
    s3.rawStarted = 1;
    s3.rawFinished = 1;
    s3.rawBilling = 1;
    s3.opened = 1;
    s3.mergeResult("s300000000000000b2");
    effects.put("s3", s3);
    closedDuration -= HOUR;
    settledKwh = settledKwh.subtract(ledger.session("s3").kwhTotal);
    settledDollars = settledDollars.subtract(ledger.session("s3").dollars);

    Verdict verdict = judge();

    assertThat(verdict.lost()).isEqualTo(1);
    assertThat(verdict.doubled()).isZero();
    assertThat(verdict.exactlyOnce()).isFalse();
    assertThat(verdict.problems()).anyMatch(p -> p.startsWith("s3: 0 Closed"));
  }

  @Test
  void anAcceptedEventMissingFromTheRawTopicIsLostAtTheBridge() {
    Effects s1 = effects.get("s1");
    s1.rawStarted = 0;
    s1.opened = 0;

    Verdict verdict = judge();

    assertThat(verdict.lost()).isEqualTo(1);
    assertThat(verdict.lostAtBridge()).isEqualTo(1);
  }

  @Test
  void anEffectOfAnEventNeverAnswered2xxIsUnexplained() {
    Ledger.Session unanswered = billedSession("s4");
    ledger.add(unanswered);
    Effects e = new Effects();
    e.opened = 1;
    effects.put("s4", e);

    Verdict verdict = judge();

    assertThat(verdict.unexplained()).isEqualTo(1);
    assertThat(verdict.exactlyOnce()).isFalse();
  }

  @Test
  void anExpiredBesideTheClosedOfAnAcceptedFinishedIsUnexplained() {
    effects.get("s1").expired = 1;

    Verdict verdict = judge();

    assertThat(verdict.unexplained()).isEqualTo(1);
    assertThat(verdict.problems()).anyMatch(p -> p.startsWith("s1: Expired although"));
  }

  @Test
  void anEffectOfASessionNeverSentIsUnexplained() {
    Effects e = new Effects();
    e.opened = 1;
    effects.put("nobody-sent-this", e);

    assertThat(judge().unexplained()).isEqualTo(1);
  }

  @Test
  void aDeadLetteredBillingMessageExpectsNoMergeResult() {
    effects.get("s2").mergeResults = 0;
    Effects s2 = new Effects();
    s2.rawStarted = 1;
    s2.rawFinished = 1;
    s2.opened = 1;
    s2.closed = 1;
    s2.mergeResult("s200000000000000a1");
    effects.put("s2", s2);
    settledKwh = settledKwh.subtract(ledger.session("s2").kwhTotal);
    settledDollars = settledDollars.subtract(ledger.session("s2").dollars);

    Verdict verdict =
        Verdict.judge(
            ledger,
            effects,
            Set.of("billing-s2"),
            Map.of(),
            Map.of(),
            closedDuration,
            settledKwh,
            settledDollars);

    assertThat(verdict.exactlyOnce()).isTrue();
    assertThat(verdict.billingAccepted()).isEqualTo(2);
  }

  @Test
  void aBillingMessageRelayedThenDeadLetteredIsOneUnexplainedEffectNotADouble() {
    Verdict verdict =
        Verdict.judge(
            ledger,
            effects,
            Set.of("billing-s2"),
            Map.of(),
            Map.of(),
            closedDuration,
            settledKwh,
            settledDollars);

    assertThat(verdict.unexplained()).isEqualTo(1);
    assertThat(verdict.doubled()).isZero();
    assertThat(verdict.lost()).isZero();
    assertThat(verdict.problems())
        .containsExactly("s2: billing relayed to Kafka although Service Bus dead-lettered it");
  }

  @Test
  void aSettledSumOtherThanTheInputsFails() {
    settledKwh = settledKwh.add(BigDecimal.ONE);

    assertThat(judge().exactlyOnce()).isFalse();
  }

  private Verdict judge() {
    return Verdict.judge(
        ledger, effects, Set.of(), Map.of(), Map.of(), closedDuration, settledKwh, settledDollars);
  }

  private static Ledger.Session billedSession(String ref) {
    return new Ledger.Session(
        Ledger.Origin.GENERATED,
        "device-" + ref,
        ref,
        1_000_000,
        1_000_000 + HOUR,
        new BigDecimal("12.50"),
        new BigDecimal("3.75"),
        -1);
  }
}
