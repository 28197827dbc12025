package dev.turnstile.testkit.servicebus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

import com.azure.core.util.BinaryData;
import com.azure.messaging.servicebus.ServiceBusClientBuilder;
import com.azure.messaging.servicebus.ServiceBusErrorContext;
import com.azure.messaging.servicebus.ServiceBusException;
import com.azure.messaging.servicebus.ServiceBusFailureReason;
import com.azure.messaging.servicebus.ServiceBusMessage;
import com.azure.messaging.servicebus.ServiceBusMessageBatch;
import com.azure.messaging.servicebus.ServiceBusProcessorClient;
import com.azure.messaging.servicebus.ServiceBusReceivedMessage;
import com.azure.messaging.servicebus.ServiceBusReceivedMessageContext;
import com.azure.messaging.servicebus.ServiceBusSenderClient;
import com.azure.messaging.servicebus.models.DeadLetterOptions;
import com.azure.messaging.servicebus.models.ServiceBusReceiveMode;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The real Azure SDK against the double: what the bridge relies on, end to end over AMQP. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ServiceBusDoubleIT {
  private static final Logger LOG = LoggerFactory.getLogger(ServiceBusDoubleIT.class);
  private static final Duration WAIT = Duration.ofSeconds(30);

  static ServiceBusDouble serviceBus;
  private final List<AutoCloseable> clients = new ArrayList<>();

  @BeforeAll
  static void start() {
    serviceBus = ServiceBusDouble.start();
  }

  @AfterAll
  static void stop() {
    serviceBus.close();
  }

  @AfterEach
  void closeClients() throws Exception {
    Collections.reverse(clients);
    for (AutoCloseable client : clients) {
      client.close();
    }
  }

  @Test
  void sentMessageArrivesWithItsPropertiesAndIsCompleted() {
    serviceBus.createQueue("complete", QueueOptions.DEFAULTS);
    ServiceBusMessage message = new ServiceBusMessage(BinaryData.fromString("hello"));
    message.setMessageId("m-1");
    message.getApplicationProperties().put("source", "meter-7");
    send("complete", message);

    List<ServiceBusReceivedMessage> received = new CopyOnWriteArrayList<>();
    startProcessor(
        "complete",
        context -> {
          received.add(context.getMessage());
          context.complete();
        });

    await().atMost(WAIT).until(() -> serviceBus.completedCount("complete") == 1);
    ServiceBusReceivedMessage arrived = received.get(0);
    assertThat(arrived.getBody().toString()).isEqualTo("hello");
    assertThat(arrived.getMessageId()).isEqualTo("m-1");
    assertThat(arrived.getApplicationProperties()).containsEntry("source", "meter-7");
    assertThat(arrived.getSequenceNumber()).isEqualTo(1);
    assertThat(arrived.getEnqueuedTime()).isNotNull();
    assertThat(arrived.getLockToken()).isNotBlank();
    assertThat(serviceBus.activeMessages("complete")).isEmpty();
  }

  @Test
  void abandonedMessageComesBackCountedThenGoesToTheDeadLetterQueue() {
    serviceBus.createQueue("abandon", QueueOptions.DEFAULTS.withMaxDeliveryCount(3));
    send("abandon", new ServiceBusMessage("retry me").setMessageId("m-2"));

    List<Long> deliveryCounts = new CopyOnWriteArrayList<>();
    startProcessor(
        "abandon",
        context -> {
          deliveryCounts.add(context.getMessage().getDeliveryCount());
          context.abandon();
        });

    await().atMost(WAIT).until(() -> serviceBus.deadLetters("abandon").size() == 1);
    assertThat(deliveryCounts).containsExactly(0L, 1L, 2L);
    assertThat(serviceBus.abandonedCount("abandon")).isEqualTo(3);
    assertThat(serviceBus.deadLetters("abandon").get(0).deadLetterReason())
        .isEqualTo("MaxDeliveryCountExceeded");
    assertThat(serviceBus.activeMessages("abandon")).isEmpty();
  }

  @Test
  void deadLetteredMessageKeepsReasonAndDescription() {
    serviceBus.createQueue("dead-letter", QueueOptions.DEFAULTS);
    send("dead-letter", new ServiceBusMessage("{not json").setMessageId("m-3"));

    startProcessor(
        "dead-letter",
        context ->
            context.deadLetter(
                new DeadLetterOptions()
                    .setDeadLetterReason("InvalidJson")
                    .setDeadLetterErrorDescription("line 1: unexpected end")));

    await().atMost(WAIT).until(() -> serviceBus.deadLetters("dead-letter").size() == 1);
    BrokeredMessage dead = serviceBus.deadLetters("dead-letter").get(0);
    assertThat(dead.messageId()).isEqualTo("m-3");
    assertThat(dead.bodyAsString()).isEqualTo("{not json");
    assertThat(dead.deadLetterReason()).isEqualTo("InvalidJson");
    assertThat(dead.deadLetterErrorDescription()).isEqualTo("line 1: unexpected end");
    assertThat(serviceBus.activeMessages("dead-letter")).isEmpty();
  }

  @Test
  void slowHandlerKeepsItsLockByRenewalAndCompletesOnce() {
    Duration lockDuration = Duration.ofMillis(1000);
    serviceBus.createQueue("renew", QueueOptions.DEFAULTS.withLockDuration(lockDuration));
    send("renew", new ServiceBusMessage("slow").setMessageId("m-4"));

    CountDownLatch release = new CountDownLatch(1);
    List<Instant> deliveries = new CopyOnWriteArrayList<>();
    startProcessor(
        "renew",
        context -> {
          deliveries.add(Instant.now());
          awaitQuietly(release);
          context.complete();
        });

    // Hold the message for twice its lock duration before letting the handler finish.
    await()
        .atMost(WAIT)
        .until(
            () ->
                !deliveries.isEmpty()
                    && Instant.now().isAfter(deliveries.get(0).plus(lockDuration.multipliedBy(2))));
    release.countDown();
    await().atMost(WAIT).until(() -> serviceBus.completedCount("renew") == 1);
    assertThat(serviceBus.renewCount("renew")).isPositive();
    assertThat(deliveries).hasSize(1);
    assertThat(serviceBus.abandonedCount("renew")).isZero();
    assertThat(serviceBus.activeMessages("renew")).isEmpty();
  }

  @Test
  void topicFansOutToEverySubscription() {
    serviceBus.createSubscription("billing", "kafka-bridge").createSubscription("billing", "audit");
    ServiceBusSenderClient sender =
        new ServiceBusClientBuilder()
            .connectionString(serviceBus.connectionString())
            .sender()
            .topicName("billing")
            .buildClient();
    try {
      sender.sendMessages(
          List.of(
              new ServiceBusMessage("a").setMessageId("b-1"),
              new ServiceBusMessage("b").setMessageId("b-2")));
    } finally {
      sender.close();
    }

    for (String subscription :
        List.of("billing/subscriptions/kafka-bridge", "billing/subscriptions/audit")) {
      assertThat(serviceBus.activeMessages(subscription))
          .extracting(BrokeredMessage::messageId, BrokeredMessage::sequenceNumber)
          .containsExactly(tuple("b-1", 1L), tuple("b-2", 2L));
    }
  }

  @Test
  void sessionProcessorKeepsOrderWithinEachSession() {
    serviceBus.createQueue("sessions", QueueOptions.DEFAULTS.withSessions());
    for (int i = 0; i < 3; i++) {
      for (String session : List.of("s-1", "s-2")) {
        send("sessions", new ServiceBusMessage(session + "/" + i).setSessionId(session));
      }
    }

    Map<String, List<String>> bySession = new ConcurrentHashMap<>();
    ServiceBusProcessorClient processor =
        new ServiceBusClientBuilder()
            .connectionString(serviceBus.connectionString())
            .sessionProcessor()
            .queueName("sessions")
            .receiveMode(ServiceBusReceiveMode.PEEK_LOCK)
            .disableAutoComplete()
            .prefetchCount(0)
            .maxConcurrentSessions(2)
            .processMessage(
                context -> {
                  ServiceBusReceivedMessage message = context.getMessage();
                  bySession
                      .computeIfAbsent(message.getSessionId(), s -> new CopyOnWriteArrayList<>())
                      .add(message.getBody().toString());
                  context.complete();
                })
            .processError(ServiceBusDoubleIT::logError)
            .buildProcessorClient();
    clients.add(processor);
    processor.start();

    await().atMost(WAIT).until(() -> serviceBus.completedCount("sessions") == 6);
    assertThat(bySession.get("s-1")).containsExactly("s-1/0", "s-1/1", "s-1/2");
    assertThat(bySession.get("s-2")).containsExactly("s-2/0", "s-2/1", "s-2/2");
  }

  @Test
  void slowSessionHandlerKeepsTheSessionLockByRenewal() {
    Duration lockDuration = Duration.ofMillis(1000);
    serviceBus.createQueue(
        "session-renew", QueueOptions.DEFAULTS.withSessions().withLockDuration(lockDuration));
    send("session-renew", new ServiceBusMessage("slow").setSessionId("s-9"));

    CountDownLatch release = new CountDownLatch(1);
    List<Instant> deliveries = new CopyOnWriteArrayList<>();
    ServiceBusProcessorClient processor =
        new ServiceBusClientBuilder()
            .connectionString(serviceBus.connectionString())
            .sessionProcessor()
            .queueName("session-renew")
            .receiveMode(ServiceBusReceiveMode.PEEK_LOCK)
            .disableAutoComplete()
            .prefetchCount(0)
            .maxConcurrentSessions(1)
            .maxAutoLockRenewDuration(Duration.ofSeconds(30))
            .processMessage(
                context -> {
                  deliveries.add(Instant.now());
                  awaitQuietly(release);
                  context.complete();
                })
            .processError(ServiceBusDoubleIT::logError)
            .buildProcessorClient();
    clients.add(processor);
    processor.start();

    await()
        .atMost(WAIT)
        .until(
            () ->
                !deliveries.isEmpty()
                    && Instant.now().isAfter(deliveries.get(0).plus(lockDuration.multipliedBy(2))));
    release.countDown();
    await().atMost(WAIT).until(() -> serviceBus.completedCount("session-renew") == 1);
    assertThat(serviceBus.renewCount("session-renew")).isPositive();
    assertThat(deliveries).hasSize(1);
  }

  @Test
  void lockLostOnRenewMeansRedeliveryAfterTheLockExpires() {
    serviceBus.createQueue(
        "lock-lost", QueueOptions.DEFAULTS.withLockDuration(Duration.ofMillis(1000)));
    serviceBus.setLockLostOnRenew(true);
    send("lock-lost", new ServiceBusMessage("fragile").setMessageId("m-6"));

    CountDownLatch firstMayFinish = new CountDownLatch(1);
    List<Long> deliveryCounts = new CopyOnWriteArrayList<>();
    List<Throwable> completeErrors = new CopyOnWriteArrayList<>();
    try {
      startProcessor(
          "lock-lost",
          context -> {
            deliveryCounts.add(context.getMessage().getDeliveryCount());
            if (deliveryCounts.size() == 1) {
              awaitQuietly(firstMayFinish);
            }
            try {
              context.complete();
            } catch (RuntimeException e) {
              completeErrors.add(e);
            }
          });

      // The lock expired on the double's timer: the message is back, one failed delivery counted.
      await()
          .atMost(WAIT)
          .until(
              () ->
                  serviceBus.activeMessages("lock-lost").stream()
                      .anyMatch(m -> m.deliveryCount() == 1));
      firstMayFinish.countDown();
      await().atMost(WAIT).until(() -> serviceBus.completedCount("lock-lost") == 1);
    } finally {
      serviceBus.setLockLostOnRenew(false);
    }
    assertThat(deliveryCounts).containsExactly(0L, 1L);
    assertThat(completeErrors)
        .singleElement()
        .satisfies(
            e ->
                assertThat(((ServiceBusException) e).getReason())
                    .isEqualTo(ServiceBusFailureReason.MESSAGE_LOCK_LOST));
  }

  @Test
  void aLostCompleteFailsWithLockLostAndTheMessageIsDeliveredAgain() {
    serviceBus.createQueue("lost-complete");
    serviceBus.loseFirstCompleteOf(id -> id.startsWith("lose-"));
    send("lost-complete", new ServiceBusMessage("once more").setMessageId("lose-1"));
    send("lost-complete", new ServiceBusMessage("just once").setMessageId("keep-1"));

    List<String> deliveries = new CopyOnWriteArrayList<>();
    List<Throwable> completeErrors = new CopyOnWriteArrayList<>();
    try {
      startProcessor(
          "lost-complete",
          context -> {
            ServiceBusReceivedMessage message = context.getMessage();
            deliveries.add(message.getMessageId() + "#" + message.getDeliveryCount());
            try {
              context.complete();
            } catch (RuntimeException e) {
              completeErrors.add(e);
            }
          });
      await().atMost(WAIT).until(() -> serviceBus.completedCount("lost-complete") == 2);
    } finally {
      serviceBus.loseFirstCompleteOf(id -> false);
    }
    assertThat(deliveries).containsExactlyInAnyOrder("lose-1#0", "lose-1#1", "keep-1#0");
    assertThat(serviceBus.lostCompleteCount("lost-complete")).isEqualTo(1);
    assertThat(completeErrors)
        .singleElement()
        .satisfies(
            e ->
                assertThat(((ServiceBusException) e).getReason())
                    .isEqualTo(ServiceBusFailureReason.MESSAGE_LOCK_LOST));
  }

  @Test
  void aMessageNearTheSizeLimitIsStoredWhole() {
    serviceBus.createQueue("near-limit", QueueOptions.DEFAULTS);
    send(
        "near-limit",
        new ServiceBusMessage(BinaryData.fromBytes(body(255_000))).setMessageId("big"));
    send("near-limit", new ServiceBusMessage("small").setMessageId("small"));

    assertThat(serviceBus.activeMessages("near-limit"))
        .extracting(m -> m.messageId(), m -> m.sequenceNumber(), m -> m.body().length)
        .containsExactly(tuple("big", 1L, 255_000), tuple("small", 2L, 5));
    assertThat(serviceBus.transferCount("near-limit")).isEqualTo(2);
    assertThat(serviceBus.refusedCount("near-limit")).isZero();
  }

  @Test
  void aMessageOverTheSizeLimitFailsTheSendAndNothingIsStored() {
    serviceBus.createQueue("over-limit", QueueOptions.DEFAULTS);

    assertThatThrownBy(
            () ->
                send(
                    "over-limit",
                    new ServiceBusMessage(BinaryData.fromBytes(body(300_000)))
                        .setMessageId("huge")))
        .isInstanceOf(ServiceBusException.class)
        .hasMessageContaining("exceeded maximum message size");
    send("over-limit", new ServiceBusMessage("next").setMessageId("next"));

    assertThat(serviceBus.activeMessages("over-limit"))
        .extracting(m -> m.messageId(), m -> m.sequenceNumber())
        .containsExactly(tuple("next", 1L));
  }

  /**
   * Issue 8, case 11: a 262,000-byte body was "reported sent but never stored". The double did not
   * drop it: it never arrived. The SDK's {@code sendMessage} (7.17.x) packs the message into a
   * batch whose envelope pushes it past the link's 256 KiB; {@code tryAddMessage} answers false,
   * the SDK's collector sends the empty batch and returns normally (the same family as
   * Azure/azure-sdk-for-java#33316). Senders near the limit must use {@code createMessageBatch} and
   * check {@code tryAddMessage}, as the second half shows. This test fails when the SDK changes, so
   * the warning to senders in docs/servicebus.md can be revisited.
   */
  @Test
  void theSdkDropsAMessageThatFitsTheLinkButNotABatchBeforeItReachesTheService() {
    serviceBus.createQueue("batch-edge", QueueOptions.DEFAULTS);
    ServiceBusMessage edge =
        new ServiceBusMessage(BinaryData.fromBytes(body(262_000))).setMessageId("edge");

    send("batch-edge", edge);

    assertThat(serviceBus.transferCount("batch-edge")).isZero();
    assertThat(serviceBus.activeMessages("batch-edge")).isEmpty();
    try (ServiceBusSenderClient sender = sender("batch-edge")) {
      ServiceBusMessageBatch batch = sender.createMessageBatch();
      assertThat(batch.tryAddMessage(edge)).isFalse();
    }
  }

  private static byte[] body(int size) {
    byte[] body = new byte[size];
    Arrays.fill(body, (byte) 'x');
    return body;
  }

  private void send(String queue, ServiceBusMessage message) {
    try (ServiceBusSenderClient sender = sender(queue)) {
      sender.sendMessage(message);
    }
  }

  private static ServiceBusSenderClient sender(String queue) {
    return new ServiceBusClientBuilder()
        .connectionString(serviceBus.connectionString())
        .sender()
        .queueName(queue)
        .buildClient();
  }

  private void startProcessor(String queue, Consumer<ServiceBusReceivedMessageContext> handler) {
    ServiceBusProcessorClient processor =
        new ServiceBusClientBuilder()
            .connectionString(serviceBus.connectionString())
            .processor()
            .queueName(queue)
            .receiveMode(ServiceBusReceiveMode.PEEK_LOCK)
            .disableAutoComplete()
            .prefetchCount(0)
            .maxConcurrentCalls(1)
            .maxAutoLockRenewDuration(Duration.ofSeconds(30))
            .processMessage(handler)
            .processError(ServiceBusDoubleIT::logError)
            .buildProcessorClient();
    clients.add(processor);
    processor.start();
  }

  private static void logError(ServiceBusErrorContext context) {
    LOG.info(
        "processor error on {}: {}", context.getEntityPath(), context.getException().toString());
  }

  private static void awaitQuietly(CountDownLatch latch) {
    try {
      latch.await(WAIT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
