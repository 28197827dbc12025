package dev.turnstile.testkit.servicebus;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

/** Fault knobs the AMQP side reads on every use; set from test threads. */
final class Faults {
  volatile boolean lockLostOnRenew;
  volatile boolean serverBusy;
  volatile boolean withholdDispositionEcho;
  volatile Duration dispositionEchoDelay = Duration.ZERO;
  volatile Predicate<String> loseFirstCompleteOf = messageId -> false;

  /** Entity paths whose next complete detaches its link instead of being applied. */
  final Set<String> detachAtNextComplete = ConcurrentHashMap.newKeySet();

  final AtomicLong completesDetached = new AtomicLong();
}
