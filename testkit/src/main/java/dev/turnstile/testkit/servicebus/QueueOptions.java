package dev.turnstile.testkit.servicebus;

import java.time.Duration;
import java.util.Objects;

/**
 * Properties of a queue or subscription in the {@link ServiceBusDouble}.
 *
 * @param requiresSession session-enabled: receivers must lock a session and get its messages in
 *     order
 * @param lockDuration how long a peek-lock (message or session) lasts before it expires
 * @param maxDeliveryCount delivery attempts after which a message is moved to the dead-letter queue
 *     with reason {@code MaxDeliveryCountExceeded}
 */
public record QueueOptions(boolean requiresSession, Duration lockDuration, int maxDeliveryCount) {

  /** Service Bus defaults: no sessions, 60 s lock, 10 deliveries. */
  public static final QueueOptions DEFAULTS = new QueueOptions(false, Duration.ofSeconds(60), 10);

  public QueueOptions {
    Objects.requireNonNull(lockDuration, "lockDuration");
    if (lockDuration.isNegative() || lockDuration.isZero()) {
      throw new IllegalArgumentException("lockDuration must be positive: " + lockDuration);
    }
    if (maxDeliveryCount < 1) {
      throw new IllegalArgumentException("maxDeliveryCount must be >= 1: " + maxDeliveryCount);
    }
  }

  public QueueOptions withSessions() {
    return new QueueOptions(true, lockDuration, maxDeliveryCount);
  }

  /** Dead-letter queues have no sessions of their own. */
  QueueOptions withSessionsOff() {
    return new QueueOptions(false, lockDuration, Integer.MAX_VALUE);
  }

  public QueueOptions withLockDuration(Duration duration) {
    return new QueueOptions(requiresSession, duration, maxDeliveryCount);
  }

  public QueueOptions withMaxDeliveryCount(int count) {
    return new QueueOptions(requiresSession, lockDuration, count);
  }
}
