package dev.turnstile.bridge.adapter.servicebus;

import dev.turnstile.bridge.port.in.RelayServiceBusMessageUseCase.AbandonReason;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * The one owner of whether the Service Bus receivers pull: running, paused because Kafka cannot
 * take writes, or closing. Receivers ask it whether to relay and report abandons to it; the source
 * resumes it once Kafka is back and closes it on shutdown. Every transition happens here, each once
 * (compare-and-set), so a burst of failing callbacks pauses once and a pause never reopens a
 * closing source.
 */
final class IntakeGate {

  private enum State {
    RUNNING,
    PAUSED,
    CLOSING
  }

  private final AtomicReference<State> state = new AtomicReference<>(State.RUNNING);
  private final Consumer<AbandonReason> onPause;
  private volatile long pausedAtNanos;

  /**
   * @param onPause called once per pause, on the thread whose abandon paused, with its reason; it
   *     should hand the stopping of receivers to another thread (a callback cannot wait for itself)
   */
  IntakeGate(Consumer<AbandonReason> onPause) {
    this.onPause = onPause;
  }

  /** True while paused or closing: a message delivered now is abandoned unwritten. */
  boolean halted() {
    return state.get() != State.RUNNING;
  }

  /** Whether pulling is paused because Kafka could not take a write. */
  boolean paused() {
    return state.get() == State.PAUSED;
  }

  /**
   * Reports an abandon: one whose reason {@link AbandonReason#pausesIntake() pauses intake} pauses
   * a running gate (and calls {@code onPause}); any other changes nothing.
   *
   * @return whether this call paused the gate
   */
  boolean abandoned(AbandonReason reason) {
    if (!reason.pausesIntake() || !state.compareAndSet(State.RUNNING, State.PAUSED)) {
      return false;
    }
    pausedAtNanos = System.nanoTime();
    onPause.accept(reason);
    return true;
  }

  /**
   * The {@link System#nanoTime()} of the current pause; meaningful only while {@link #paused()}.
   */
  long pausedAtNanos() {
    return pausedAtNanos;
  }

  /** Paused to running; false if it was not paused (running already, or closing). */
  boolean resume() {
    return state.compareAndSet(State.PAUSED, State.RUNNING);
  }

  /** Closing, from any state, for good. */
  void close() {
    state.set(State.CLOSING);
  }
}
