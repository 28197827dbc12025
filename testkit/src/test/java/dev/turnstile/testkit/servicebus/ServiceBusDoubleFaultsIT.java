package dev.turnstile.testkit.servicebus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.azure.core.amqp.AmqpRetryOptions;
import com.azure.core.amqp.exception.AmqpErrorCondition;
import com.azure.core.amqp.exception.AmqpException;
import com.azure.messaging.servicebus.ServiceBusClientBuilder;
import com.azure.messaging.servicebus.ServiceBusException;
import com.azure.messaging.servicebus.ServiceBusMessage;
import com.azure.messaging.servicebus.ServiceBusProcessorClient;
import com.azure.messaging.servicebus.ServiceBusSenderClient;
import com.azure.messaging.servicebus.models.ServiceBusReceiveMode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The double's fault knobs, seen through the real SDK. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ServiceBusDoubleFaultsIT {
  private static final Duration WAIT = Duration.ofSeconds(30);

  static ServiceBusDouble serviceBus;
  static ServiceBusSenderClient sender;

  @BeforeAll
  static void start() {
    serviceBus = ServiceBusDouble.start().createQueue("faults").createQueue("busy");
    sender = senderFor("faults", 1);
  }

  @AfterAll
  static void stop() {
    sender.close();
    serviceBus.close();
  }

  @Test
  void serverBusyRejectsSends() {
    serviceBus.setServerBusy(true);
    try (ServiceBusSenderClient busySender = senderFor("busy", 0)) {
      // With no retries left the SDK wraps the service's error: look for it in the causes.
      assertThatThrownBy(() -> busySender.sendMessage(new ServiceBusMessage("x")))
          .isInstanceOf(ServiceBusException.class)
          .satisfies(
              e -> assertThat(errorConditionsIn(e)).contains(AmqpErrorCondition.SERVER_BUSY_ERROR));
    } finally {
      serviceBus.setServerBusy(false);
    }
    assertThat(serviceBus.activeMessages("busy")).isEmpty();
  }

  @Test
  void processorCompletesDespiteALateDispositionEcho() {
    List<String> received = new CopyOnWriteArrayList<>();
    ServiceBusProcessorClient processor =
        new ServiceBusClientBuilder()
            .connectionString(serviceBus.connectionString())
            .processor()
            .queueName("faults")
            .receiveMode(ServiceBusReceiveMode.PEEK_LOCK)
            .disableAutoComplete()
            .prefetchCount(0)
            .processMessage(
                context -> {
                  received.add(context.getMessage().getBody().toString());
                  context.complete();
                })
            .processError(context -> {})
            .buildProcessorClient();
    try {
      processor.start();
      sendAndAwaitCompleted("before", 1);

      serviceBus.setDispositionEchoDelay(Duration.ofMillis(500));
      sendAndAwaitCompleted("late-echo", 2);
    } finally {
      serviceBus.setDispositionEchoDelay(Duration.ZERO);
      processor.close();
    }
    assertThat(received).containsExactly("before", "late-echo");
  }

  @Test
  void senderReconnectsAfterForcedConnectionClose() {
    serviceBus.createQueue("close");
    try (ServiceBusSenderClient closeSender = senderFor("close", 1)) {
      closeSender.sendMessage(new ServiceBusMessage("before"));
      serviceBus.forceConnectionClose();
      closeSender.sendMessage(new ServiceBusMessage("after"));
    }
    assertThat(serviceBus.activeMessages("close"))
        .extracting(BrokeredMessage::bodyAsString)
        .containsExactly("before", "after");
  }

  @Test
  void senderReattachesAfterForcedDetach() {
    serviceBus.createQueue("detach");
    try (ServiceBusSenderClient detachSender = senderFor("detach", 1)) {
      detachSender.sendMessage(new ServiceBusMessage("before"));
      serviceBus.forceDetach("detach");
      // A send racing the detach may fail ("disposed") or time out: the client retries it.
      await()
          .atMost(WAIT)
          .ignoreExceptions()
          .untilAsserted(() -> detachSender.sendMessage(new ServiceBusMessage("after")));
    }
    assertThat(serviceBus.activeMessages("detach"))
        .extracting(BrokeredMessage::bodyAsString)
        .containsExactly("before", "after");
  }

  private static List<AmqpErrorCondition> errorConditionsIn(Throwable error) {
    List<AmqpErrorCondition> conditions = new ArrayList<>();
    for (Throwable cause = error; cause != null; cause = cause.getCause()) {
      if (cause instanceof AmqpException amqp) {
        conditions.add(amqp.getErrorCondition());
      }
    }
    return conditions;
  }

  private static void sendAndAwaitCompleted(String body, long completed) {
    sender.sendMessage(new ServiceBusMessage(body));
    await().atMost(WAIT).until(() -> serviceBus.completedCount("faults") == completed);
  }

  private static AmqpRetryOptions shortRetries(int maxRetries) {
    return new AmqpRetryOptions().setMaxRetries(maxRetries).setTryTimeout(Duration.ofSeconds(5));
  }

  private static ServiceBusSenderClient senderFor(String queue, int maxRetries) {
    return new ServiceBusClientBuilder()
        .connectionString(serviceBus.connectionString())
        .retryOptions(shortRetries(maxRetries))
        .sender()
        .queueName(queue)
        .buildClient();
  }
}
