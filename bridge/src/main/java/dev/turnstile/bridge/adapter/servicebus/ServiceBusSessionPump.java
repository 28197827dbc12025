package dev.turnstile.bridge.adapter.servicebus;

import com.azure.messaging.servicebus.ServiceBusException;
import com.azure.messaging.servicebus.ServiceBusFailureReason;
import com.azure.messaging.servicebus.ServiceBusReceivedMessage;
import com.azure.messaging.servicebus.ServiceBusReceiverClient;
import com.azure.messaging.servicebus.ServiceBusSessionReceiverClient;
import dev.turnstile.bridge.config.ServiceBusConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The message pump of a session-enabled entity: {@code max-concurrent-sessions} slots, each of
 * which accepts the next free session, hands its messages one at a time, in order, to the callback,
 * and lets the session go once no message has come for {@code session-idle-timeout-ms} after the
 * last one was settled; then it accepts the next session at once. The session lock is renewed by
 * the SDK (up to {@code max-auto-lock-renew-ms}) while the slot holds the session.
 *
 * <p>Why not the SDK's session processor: it ends a session after its {@code sessionIdleTimeout}
 * (counted from the last message received, so a slow callback ends it too) and then waits a fixed
 * second before it accepts the next session (azure-core-amqp's {@code MessageFlux} backs off one
 * second after a receiver that completed without error). One slot thus drains at most about 0.8
 * sessions/s however short the timeout (measured here: 50 sessions of 2 messages in 64 s with a 200
 * ms timeout), and one session per minute with the SDK's default timeout. This pump drains them at
 * the speed of the callbacks plus the idle timeout.
 */
final class ServiceBusSessionPump implements MessagePump {

  private static final Logger LOG = LoggerFactory.getLogger(ServiceBusSessionPump.class);

  /** Pause after an unexpected failure to accept or read a session, so a slot does not spin. */
  private static final Duration BACKOFF = Duration.ofSeconds(1);

  private final ServiceBusSessionReceiverClient client;
  private final ServiceBusConfig.Entity entity;
  private final ServiceBusEntityReceiver receiver;
  private final List<Thread> slots = new ArrayList<>();
  private volatile boolean running;

  /**
   * @param client receives from the entity in peek-lock mode, auto-complete off, renewing session
   *     locks up to the entity's renewal cap
   */
  ServiceBusSessionPump(
      ServiceBusSessionReceiverClient client,
      ServiceBusConfig.Entity entity,
      ServiceBusEntityReceiver receiver) {
    this.client = client;
    this.entity = entity;
    this.receiver = receiver;
  }

  @Override
  public synchronized void start() {
    running = true;
    for (int i = 1; i <= entity.maxConcurrentSessions(); i++) {
      Thread slot =
          new Thread(this::run, "turnstile-servicebus-" + entity.name() + "-session-" + i);
      slot.setDaemon(true);
      slots.add(slot);
      slot.start();
    }
  }

  private void run() {
    while (running) {
      ServiceBusReceiverClient session;
      try {
        session = client.acceptNextSession();
      } catch (RuntimeException e) {
        if (running && !noSessionAvailable(e)) {
          receiver.processError(e, "ACCEPT_SESSION");
          pause();
        }
        continue;
      }
      try {
        drain(session);
      } catch (RuntimeException e) {
        // A lost session lock or link: what was not settled is offered again, to this or another
        // slot, in order.
        if (running) {
          receiver.processError(e, "RECEIVE");
        }
      } finally {
        session.close();
      }
    }
  }

  /** Hands the session's messages to the callback until none comes within the idle timeout. */
  private void drain(ServiceBusReceiverClient session) {
    while (running) {
      List<ServiceBusReceivedMessage> next = new ArrayList<>(1);
      session.receiveMessages(1, entity.sessionIdleTimeout()).forEach(next::add);
      if (next.isEmpty()) {
        return;
      }
      for (ServiceBusReceivedMessage message : next) {
        receiver.processMessage(message, Settler.of(session, message));
      }
    }
  }

  /**
   * Service Bus answers an accept with {@code com.microsoft:timeout} when no session has a message
   * for it within the try timeout; the SDK's blocking client throws that as an {@code
   * IllegalStateException} caused by a {@link TimeoutException}. Then the slot simply asks again.
   */
  private static boolean noSessionAvailable(RuntimeException e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof TimeoutException
          || (t instanceof ServiceBusException sb
              && sb.getReason() == ServiceBusFailureReason.SERVICE_TIMEOUT)) {
        return true;
      }
      if (t.getCause() == t) {
        break;
      }
    }
    return false;
  }

  private void pause() {
    try {
      TimeUnit.MILLISECONDS.sleep(BACKOFF.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      running = false;
    }
  }

  /**
   * Stops the slots: each finishes the callback it runs (the caller waited for callbacks first),
   * lets its session go, and ends; a slot waiting to accept a session is interrupted.
   */
  @Override
  public void close() {
    List<Thread> started;
    synchronized (this) {
      running = false;
      started = List.copyOf(slots);
    }
    client.close();
    for (Thread slot : started) {
      slot.interrupt();
    }
    for (Thread slot : started) {
      try {
        slot.join(TimeUnit.SECONDS.toMillis(5));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }
}
