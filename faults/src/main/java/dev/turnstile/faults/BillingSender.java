package dev.turnstile.faults;

import com.azure.messaging.servicebus.ServiceBusClientBuilder;
import com.azure.messaging.servicebus.ServiceBusMessage;
import com.azure.messaging.servicebus.ServiceBusMessageBatch;
import com.azure.messaging.servicebus.ServiceBusSenderClient;
import dev.turnstile.local.BillingPublisher;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The back office: sends one billing message per session on the Service Bus queue the bridge reads,
 * with the real SDK sender, in batches, from its own thread. The message is the local stack's
 * ({@link BillingPublisher#message}): {@code messageId} {@code billing-<ref>}, property {@code
 * mergeKey} = the session reference.
 */
final class BillingSender implements AutoCloseable {

  private static final int MAX_BATCH = 200;

  private final Ledger ledger;
  private final ServiceBusSenderClient sender;
  private final BlockingQueue<Ledger.Session> queue = new LinkedBlockingQueue<>();
  private final AtomicReference<RuntimeException> failure = new AtomicReference<>();
  private final Thread thread;
  private volatile boolean closing;

  BillingSender(String connectionString, String queueName, Ledger ledger) {
    this.ledger = ledger;
    this.sender =
        new ServiceBusClientBuilder()
            .connectionString(connectionString)
            .sender()
            .queueName(queueName)
            .buildClient();
    this.thread = new Thread(this::run, "billing-sender");
    thread.setDaemon(true);
    thread.start();
  }

  /** Queues the session's billing message. */
  void bill(Ledger.Session session) {
    if (!session.billed()) {
      throw new IllegalArgumentException("session " + session.sessionRef + " has no billing");
    }
    queue.add(session);
  }

  /** Billing messages queued here and not yet on Service Bus. */
  int pending() {
    return queue.size();
  }

  private void run() {
    List<Ledger.Session> taken = new ArrayList<>();
    while (!closing || !queue.isEmpty()) {
      try {
        Ledger.Session first = queue.poll(200, TimeUnit.MILLISECONDS);
        if (first == null) {
          continue;
        }
        taken.add(first);
        queue.drainTo(taken, MAX_BATCH - 1);
        send(taken);
        taken.forEach(ledger::billingSent);
        taken.clear();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (RuntimeException e) {
        failure.compareAndSet(null, e);
        // The double is in this JVM; a failed send is retried rather than lost.
        queue.addAll(taken);
        taken.clear();
        Pause.millis(500);
      }
    }
  }

  private void send(List<Ledger.Session> sessions) {
    ServiceBusMessageBatch batch = sender.createMessageBatch();
    for (Ledger.Session session : sessions) {
      ServiceBusMessage message =
          BillingPublisher.message(
              session.sessionRef, userId(session), session.kwhTotal, session.dollars);
      if (!batch.tryAddMessage(message)) {
        sender.sendMessages(batch);
        batch = sender.createMessageBatch();
        if (!batch.tryAddMessage(message)) {
          throw new IllegalStateException("a billing message does not fit in a batch");
        }
      }
    }
    if (batch.getCount() > 0) {
      sender.sendMessages(batch);
    }
  }

  private static String userId(Ledger.Session session) {
    return "driver-" + Math.floorMod(session.sessionRef.hashCode(), 997);
  }

  /** The first send failure, if any (sends are retried). */
  RuntimeException failure() {
    return failure.get();
  }

  /** Sends what is queued, then closes the sender. */
  @Override
  public void close() {
    closing = true;
    try {
      thread.join(60_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    sender.close();
  }
}
