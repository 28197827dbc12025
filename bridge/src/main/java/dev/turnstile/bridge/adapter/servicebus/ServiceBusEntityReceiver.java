package dev.turnstile.bridge.adapter.servicebus;

import com.azure.messaging.servicebus.ServiceBusErrorContext;
import com.azure.messaging.servicebus.ServiceBusException;
import com.azure.messaging.servicebus.ServiceBusFailureReason;
import com.azure.messaging.servicebus.ServiceBusReceivedMessage;
import com.azure.messaging.servicebus.ServiceBusReceivedMessageContext;
import com.azure.messaging.servicebus.models.DeadLetterOptions;
import dev.turnstile.bridge.config.ServiceBusConfig;
import dev.turnstile.bridge.port.in.RelayServiceBusMessageUseCase;
import dev.turnstile.bridge.port.in.RelayServiceBusMessageUseCase.Abandon;
import dev.turnstile.bridge.port.in.RelayServiceBusMessageUseCase.AbandonReason;
import dev.turnstile.bridge.port.in.RelayServiceBusMessageUseCase.Complete;
import dev.turnstile.bridge.port.in.RelayServiceBusMessageUseCase.DeadLetter;
import dev.turnstile.bridge.port.in.RelayServiceBusMessageUseCase.ReceivedMessage;
import dev.turnstile.bridge.port.in.RelayServiceBusMessageUseCase.Settlement;
import java.time.Duration;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One entity's message pump (the SDK's processor client, or {@link ServiceBusSessionPump} for a
 * session-enabled entity) and its message callback. The callback waits, bounded by the settle
 * timeout, for Kafka's acknowledgement: the SDK renews the lock only while the callback runs. While
 * the {@link IntakeGate} is paused it holds its message and waits (at most the lock renewal cap
 * less the settle timeout) instead of giving it back, so an outage does not run delivery counts up
 * to the dead-letter queue. It counts itself in flight so that closing can wait for it before
 * closing the client (closing disposes the receiver under running callbacks,
 * Azure/azure-sdk-for-java#45716).
 */
final class ServiceBusEntityReceiver {

  private static final Logger LOG = LoggerFactory.getLogger(ServiceBusEntityReceiver.class);

  /** The entity cannot be served until someone changes configuration or rights. */
  private static final Set<ServiceBusFailureReason> FATAL =
      Set.of(
          ServiceBusFailureReason.UNAUTHORIZED,
          ServiceBusFailureReason.MESSAGING_ENTITY_NOT_FOUND,
          ServiceBusFailureReason.MESSAGING_ENTITY_DISABLED);

  private static final Set<ServiceBusFailureReason> LOCK_LOST =
      Set.of(ServiceBusFailureReason.MESSAGE_LOCK_LOST, ServiceBusFailureReason.SESSION_LOCK_LOST);

  private final ServiceBusConfig.Entity entity;
  private final RelayServiceBusMessageUseCase useCase;
  private final Duration settleTimeout;
  private final Duration longestWait;
  private final IntakeGate gate;
  private final ServiceBusMetrics metrics;
  private final MessagePump pump;
  private final AtomicInteger inFlight = new AtomicInteger();
  private final Object idle = new Object();
  private boolean closed;

  /**
   * @param gate whether to relay at all; told of every abandon, it pauses the source when Kafka
   *     cannot take writes
   * @param pumpFactory builds the pump that calls {@link #processMessage} and {@link #processError}
   */
  ServiceBusEntityReceiver(
      ServiceBusConfig.Entity entity,
      RelayServiceBusMessageUseCase useCase,
      Duration settleTimeout,
      IntakeGate gate,
      Function<ServiceBusEntityReceiver, MessagePump> pumpFactory,
      io.micrometer.core.instrument.MeterRegistry registry) {
    this.entity = entity;
    this.useCase = useCase;
    this.settleTimeout = settleTimeout;
    // A message held through a pause must still be relayed and settled under a renewed lock.
    this.longestWait = maxOf(Duration.ZERO, entity.maxAutoLockRenew().minus(settleTimeout));
    this.gate = gate;
    this.metrics =
        new ServiceBusMetrics(registry, entity.name(), inFlight::get, () -> gate.halted() ? 1 : 0);
    this.pump = pumpFactory.apply(this);
  }

  ServiceBusConfig.Entity entity() {
    return entity;
  }

  synchronized void start() {
    if (!closed) {
      pump.start();
    }
  }

  synchronized void close() {
    closed = true;
    pump.close();
  }

  /** Waits until no callback runs, at most until {@code deadlineNanos}; true if idle. */
  boolean awaitIdle(long deadlineNanos) throws InterruptedException {
    synchronized (idle) {
      long left;
      while (inFlight.get() > 0 && (left = deadlineNanos - System.nanoTime()) > 0) {
        TimeUnit.NANOSECONDS.timedWait(idle, left);
      }
      return inFlight.get() == 0;
    }
  }

  private static Duration maxOf(Duration a, Duration b) {
    return a.compareTo(b) >= 0 ? a : b;
  }

  int inFlight() {
    return inFlight.get();
  }

  /** The processor client's callback. */
  void processMessage(ServiceBusReceivedMessageContext context) {
    processMessage(context.getMessage(), Settler.of(context));
  }

  /** Relays one message and settles it through {@code settler}; returns once it is settled. */
  void processMessage(ServiceBusReceivedMessage message, Settler settler) {
    long receivedAtNanos = System.nanoTime();
    inFlight.incrementAndGet();
    try {
      metrics.received();
      IntakeGate.State state = gate.awaitNotPaused(receivedAtNanos + longestWait.toNanos());
      if (state != IntakeGate.State.RUNNING) {
        settle(
            message,
            settler,
            new Abandon(
                AbandonReason.PAUSED,
                state == IntakeGate.State.CLOSING
                    ? "the bridge is closing"
                    : "Kafka still cannot take writes after " + longestWait));
        return;
      }
      settle(message, settler, relay(toReceivedMessage(message)));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      settle(message, settler, new Abandon(AbandonReason.INTERRUPTED, "interrupted while paused"));
    } finally {
      if (inFlight.decrementAndGet() == 0) {
        synchronized (idle) {
          idle.notifyAll();
        }
      }
    }
  }

  private Settlement relay(ReceivedMessage message) {
    long start = System.nanoTime();
    try {
      Settlement settlement =
          useCase
              .relay(message)
              .toCompletableFuture()
              .get(settleTimeout.toMillis(), TimeUnit.MILLISECONDS);
      if (settlement instanceof Complete) {
        metrics.kafkaAck(Duration.ofNanos(System.nanoTime() - start));
      }
      return settlement;
    } catch (TimeoutException e) {
      return new Abandon(AbandonReason.SETTLE_TIMEOUT, "no Kafka ack within " + settleTimeout);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Abandon(AbandonReason.INTERRUPTED, "interrupted while waiting for Kafka");
    } catch (ExecutionException | RuntimeException e) {
      LOG.warn("relaying a message from {} failed unexpectedly", entity.entityPath(), e);
      return new Abandon(AbandonReason.ERROR, String.valueOf(e));
    }
  }

  private void settle(ServiceBusReceivedMessage message, Settler settler, Settlement settlement) {
    try {
      if (settlement instanceof Complete) {
        settler.complete();
        metrics.completed();
      } else if (settlement instanceof Abandon abandon) {
        // Before the abandon, so the redelivery that may follow at once is not written.
        gate.abandoned(abandon.reason());
        settler.abandon();
        metrics.abandoned(abandon.reason().slug());
      } else if (settlement instanceof DeadLetter dead) {
        settler.deadLetter(
            new DeadLetterOptions()
                .setDeadLetterReason(dead.reason())
                .setDeadLetterErrorDescription(dead.description()));
        metrics.deadLettered(dead.reason());
        LOG.warn(
            "dead-lettered message {} (sequence {}) of {}: {} {}",
            message.getMessageId(),
            message.getSequenceNumber(),
            entity.entityPath(),
            dead.reason(),
            dead.description());
      }
    } catch (ServiceBusException e) {
      if (LOCK_LOST.contains(e.getReason())) {
        // Redelivered later; if it reached Kafka, the topology's dedup absorbs the second copy.
        metrics.lockLost();
        LOG.info(
            "lock lost before settling message {} (sequence {}) of {} as {}",
            message.getMessageId(),
            message.getSequenceNumber(),
            entity.entityPath(),
            settlement.getClass().getSimpleName());
      } else {
        LOG.warn(
            "settling message {} of {} failed; it will be redelivered",
            message.getSequenceNumber(),
            entity.entityPath(),
            e);
      }
    } catch (RuntimeException e) {
      LOG.warn(
          "settling message {} of {} failed; it will be redelivered",
          message.getSequenceNumber(),
          entity.entityPath(),
          e);
    }
  }

  /** The processor client's error callback. */
  void processError(ServiceBusErrorContext context) {
    processError(context.getException(), String.valueOf(context.getErrorSource()));
  }

  /**
   * Logs an error of the pump: at ERROR when the entity cannot be served until configuration or
   * rights change, else at WARN (the pump retries).
   *
   * @param source what the pump was doing, e.g. {@code RECEIVE} or {@code ACCEPT_SESSION}
   */
  void processError(Throwable error, String source) {
    if (error instanceof ServiceBusException e && FATAL.contains(e.getReason())) {
      LOG.error(
          "entity {} cannot be served ({}): check its name and the bridge's rights",
          entity.entityPath(),
          e.getReason(),
          e);
    } else {
      LOG.warn(
          "transient error on entity {} ({}), the processor retries: {}",
          entity.entityPath(),
          source,
          String.valueOf(error));
    }
  }

  private ReceivedMessage toReceivedMessage(ServiceBusReceivedMessage message) {
    Map<String, Object> properties = message.getApplicationProperties();
    return new ReceivedMessage(
        entity.name(),
        entity.entityPath(),
        message.getMessageId(),
        message.getSequenceNumber(),
        message.getEnqueuedTime(),
        message.getDeliveryCount(),
        message.getSessionId(),
        message.getPartitionKey(),
        message.getCorrelationId(),
        message.getSubject(),
        message.getContentType(),
        properties == null ? Map.of() : Collections.unmodifiableMap(new HashMap<>(properties)),
        message.getBody().toBytes());
  }
}
