package dev.turnstile.testkit.servicebus;

import java.time.Duration;

/** Fault knobs the AMQP side reads on every use; set from test threads. */
final class Faults {
  volatile boolean lockLostOnRenew;
  volatile boolean serverBusy;
  volatile boolean withholdDispositionEcho;
  volatile Duration dispositionEchoDelay = Duration.ZERO;
}
