package dev.turnstile.bridge.adapter.servicebus;

import dev.turnstile.bridge.port.in.RelayServiceBusMessageUseCase.AbandonReason;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The one owner of whether the Service Bus receivers relay: running, paused because Kafka cannot
 * take writes, or closing. Receivers ask it whether to relay, report abandons to it and, while it
 * is paused, wait on it with the message they hold; the source resumes it once Kafka is back and
 * closes it on shutdown. Every transition happens here, each once, so a burst of failing callbacks
 * pauses once and a pause never reopens a closing source.
 *
 * <p>Why callbacks wait instead of giving their message back: Service Bus offers an abandoned
 * message again at once, and every delivery counts toward the entity's {@code MaxDeliveryCount}. A
 * callback that abandoned and returned would be handed the same message again within milliseconds,
 * and after {@code MaxDeliveryCount} rounds the message would be in the dead-letter queue although
 * nothing is wrong with it. A waiting callback holds its slot (the processor asks for no message
 * while all its {@code maxConcurrentCalls} slots are busy) and its lock (the SDK renews it while
 * the callback runs).
 */
final class IntakeGate {

  /** What a waiting callback found when it stopped waiting. */
  enum State {
    RUNNING,
    PAUSED,
    CLOSING
  }

  private final Consumer<AbandonReason> onPause;
  private State state = State.RUNNING;
  private long pausedAtNanos;

  /**
   * @param onPause called once per pause, on the thread whose abandon paused, with its reason; it
   *     must not block (schedule the resume check elsewhere)
   */
  IntakeGate(Consumer<AbandonReason> onPause) {
    this.onPause = onPause;
  }

  /** True while paused or closing: a message delivered now must not be written yet. */
  synchronized boolean halted() {
    return state != State.RUNNING;
  }

  /** Whether relaying is paused because Kafka could not take a write. */
  synchronized boolean paused() {
    return state == State.PAUSED;
  }

  /**
   * Reports an abandon: one whose reason {@link AbandonReason#pausesIntake() pauses intake} pauses
   * a running gate (and calls {@code onPause}); any other changes nothing.
   *
   * @return whether this call paused the gate
   */
  boolean abandoned(AbandonReason reason) {
    synchronized (this) {
      if (!reason.pausesIntake() || state != State.RUNNING) {
        return false;
      }
      state = State.PAUSED;
      pausedAtNanos = System.nanoTime();
    }
    onPause.accept(reason);
    return true;
  }

  /**
   * The {@link System#nanoTime()} of the current pause; meaningful only while {@link #paused()}.
   */
  synchronized long pausedAtNanos() {
    return pausedAtNanos;
  }

  /**
   * Waits while paused, at most until {@code deadlineNanos} ({@link System#nanoTime()} based).
   *
   * @return the state when the wait ended: {@code RUNNING} (relay the message now), {@code CLOSING}
   *     or {@code PAUSED} (the deadline passed)
   * @throws InterruptedException if the waiting thread is interrupted
   */
  synchronized State awaitNotPaused(long deadlineNanos) throws InterruptedException {
    long left;
    while (state == State.PAUSED && (left = deadlineNanos - System.nanoTime()) > 0) {
      TimeUnit.NANOSECONDS.timedWait(this, left);
    }
    return state;
  }

  /** Paused to running, waking every waiting callback; false if it was not paused. */
  synchronized boolean resume() {
    if (state != State.PAUSED) {
      return false;
    }
    state = State.RUNNING;
    notifyAll();
    return true;
  }

  /** Closing, from any state, for good; wakes every waiting callback. */
  synchronized void close() {
    state = State.CLOSING;
    notifyAll();
  }
}
