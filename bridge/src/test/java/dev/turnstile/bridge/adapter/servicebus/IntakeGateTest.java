package dev.turnstile.bridge.adapter.servicebus;

import static org.assertj.core.api.Assertions.assertThat;

import dev.turnstile.bridge.port.in.RelayServiceBusMessageUseCase.AbandonReason;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class IntakeGateTest {

  private final List<AbandonReason> pauses = new ArrayList<>();
  private final IntakeGate gate = new IntakeGate(pauses::add);

  @Test
  void onlyReasonsThatSayKafkaIsDownPauseAndABurstPausesOnce() {
    for (AbandonReason reason : AbandonReason.values()) {
      if (!reason.pausesIntake()) {
        assertThat(gate.abandoned(reason)).as(reason.name()).isFalse();
      }
    }
    assertThat(gate.halted()).isFalse();

    assertThat(gate.abandoned(AbandonReason.UNAVAILABLE)).isTrue();
    assertThat(gate.abandoned(AbandonReason.SATURATED)).isFalse();
    assertThat(gate.abandoned(AbandonReason.SETTLE_TIMEOUT)).isFalse();

    assertThat(pauses).containsExactly(AbandonReason.UNAVAILABLE);
    assertThat(gate.paused()).isTrue();
    assertThat(gate.halted()).isTrue();
  }

  @Test
  void kafkaDownIsSaturatedUnavailableOrNoAckInTime() {
    assertThat(AbandonReason.values())
        .filteredOn(AbandonReason::pausesIntake)
        .containsExactlyInAnyOrder(
            AbandonReason.SATURATED, AbandonReason.UNAVAILABLE, AbandonReason.SETTLE_TIMEOUT);
  }

  @Test
  void resumingReopensOnlyAPausedGate() {
    assertThat(gate.resume()).isFalse();
    gate.abandoned(AbandonReason.SATURATED);
    long pausedAt = gate.pausedAtNanos();

    assertThat(gate.resume()).isTrue();
    assertThat(gate.halted()).isFalse();
    assertThat(gate.abandoned(AbandonReason.SATURATED)).isTrue();
    assertThat(gate.pausedAtNanos()).isGreaterThanOrEqualTo(pausedAt);
    assertThat(pauses).hasSize(2);
  }

  @Test
  void closingIsForGoodAndIsNeverPausedOrResumed() {
    gate.abandoned(AbandonReason.UNAVAILABLE);
    gate.close();

    assertThat(gate.resume()).isFalse();
    assertThat(gate.abandoned(AbandonReason.UNAVAILABLE)).isFalse();
    assertThat(gate.paused()).isFalse();
    assertThat(gate.halted()).isTrue();
    assertThat(pauses).hasSize(1);
  }

  @Test
  void aWaitingCallbackIsWokenByResumeOrCloseAndOtherwiseWaitsUntilItsDeadline() throws Exception {
    long far = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    assertThat(gate.awaitNotPaused(far)).isEqualTo(IntakeGate.State.RUNNING);

    gate.abandoned(AbandonReason.UNAVAILABLE);
    long soon = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(50);
    assertThat(gate.awaitNotPaused(soon)).isEqualTo(IntakeGate.State.PAUSED);
    assertThat(System.nanoTime()).isGreaterThanOrEqualTo(soon);

    CompletableFuture<IntakeGate.State> resumed = waitOnAnotherThread(far);
    assertThat(resumed).isNotDone();
    gate.resume();
    assertThat(resumed.get(30, TimeUnit.SECONDS)).isEqualTo(IntakeGate.State.RUNNING);

    gate.abandoned(AbandonReason.SETTLE_TIMEOUT);
    CompletableFuture<IntakeGate.State> closed = waitOnAnotherThread(far);
    gate.close();
    assertThat(closed.get(30, TimeUnit.SECONDS)).isEqualTo(IntakeGate.State.CLOSING);
  }

  private CompletableFuture<IntakeGate.State> waitOnAnotherThread(long deadlineNanos)
      throws InterruptedException {
    CountDownLatch started = new CountDownLatch(1);
    CompletableFuture<IntakeGate.State> result =
        CompletableFuture.supplyAsync(
            () -> {
              started.countDown();
              try {
                return gate.awaitNotPaused(deadlineNanos);
              } catch (InterruptedException e) {
                throw new IllegalStateException(e);
              }
            });
    started.await();
    return result;
  }
}
