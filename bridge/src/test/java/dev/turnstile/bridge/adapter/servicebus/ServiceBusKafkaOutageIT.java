package dev.turnstile.bridge.adapter.servicebus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.azure.messaging.servicebus.ServiceBusClientBuilder;
import com.azure.messaging.servicebus.ServiceBusMessage;
import com.azure.messaging.servicebus.ServiceBusSenderClient;
import dev.turnstile.bridge.BridgeApplication;
import dev.turnstile.bridge.config.BridgeConfigLoader;
import dev.turnstile.runtime.topics.TopicSpec;
import dev.turnstile.schemas.ServiceBusHeaders;
import dev.turnstile.schemas.TopicCatalogue;
import dev.turnstile.testkit.EmbeddedKafka;
import dev.turnstile.testkit.servicebus.QueueOptions;
import dev.turnstile.testkit.servicebus.ServiceBusDouble;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Kafka stopped under a Service Bus load, through the bridge's own wiring: the source pauses
 * instead of cycling messages toward the dead-letter queue, completes nothing Kafka did not take,
 * and resumes by itself.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ServiceBusKafkaOutageIT {

  private static final Duration WAIT = Duration.ofSeconds(90);
  private static final String TOPIC = TopicCatalogue.SERVICEBUS_MESSAGES_RAW.baseName();

  static EmbeddedKafka kafka;
  static ServiceBusDouble serviceBus;

  @BeforeAll
  static void start() {
    kafka = EmbeddedKafka.start(null);
    kafka.createTopics(
        List.of(TopicSpec.of(TopicCatalogue.SERVICEBUS_MESSAGES_RAW, "", (short) 1).toNewTopic()));
    serviceBus = ServiceBusDouble.start();
  }

  @AfterAll
  static void stop() {
    serviceBus.close();
    kafka.close();
  }

  @Test
  void kafkaOutagePausesPullingAndNothingIsLostOrDeadLettered() {
    serviceBus.createQueue("billing", QueueOptions.DEFAULTS.withMaxDeliveryCount(5));
    BridgeApplication bridge =
        BridgeApplication.start(
            BridgeConfigLoader.fromMap(
                Map.ofEntries(
                    Map.entry("kafka.bootstrap.servers", kafka.bootstrapServers()),
                    Map.entry("bridge.auth.enabled", "false"), // no HTTP here
                    Map.entry("bridge.http.host", "127.0.0.1"),
                    Map.entry("bridge.http.port", "0"),
                    Map.entry("bridge.kafka.ack-timeout-ms", "1500"),
                    Map.entry("bridge.kafka.readiness-interval-ms", "500"),
                    Map.entry("bridge.servicebus.entities", "billing"),
                    Map.entry("bridge.servicebus.entity.billing.queue", "billing"),
                    Map.entry("bridge.servicebus.entity.billing.max-auto-lock-renew-ms", "60000"),
                    Map.entry("bridge.servicebus.connection-string", serviceBus.connectionString()),
                    Map.entry("bridge.servicebus.local-mode", "true"),
                    Map.entry("bridge.servicebus.settle-timeout-ms", "5000"),
                    Map.entry("bridge.servicebus.resume-check-interval-ms", "200"))));
    try {
      sendAll(ids(0, 5));
      await().atMost(WAIT).until(() -> serviceBus.completedCount("billing") == 5);

      kafka.stopBroker();
      sendAll(ids(5, 15));
      await().atMost(WAIT).until(bridge::serviceBusPaused);
      // Paused: pulling stopped, nothing completed that Kafka did not acknowledge.
      await()
          .during(Duration.ofSeconds(3))
          .atMost(WAIT)
          .until(() -> serviceBus.completedCount("billing") == 5 && bridge.serviceBusPaused());
      long abandonedDuringOutage = serviceBus.abandonedCount("billing");

      kafka.restartBroker();
      await().atMost(WAIT).until(() -> serviceBus.completedCount("billing") == 15);
      assertThat(bridge.serviceBusPaused()).isFalse();
      assertThat(abandonedDuringOutage).isPositive().isLessThan(5);
    } finally {
      bridge.close();
    }
    assertThat(serviceBus.deadLetters("billing")).isEmpty();
    assertThat(serviceBus.activeMessages("billing")).isEmpty();
    List<ConsumerRecord<String, byte[]>> records =
        RawTopic.readAll(kafka.bootstrapServers(), TOPIC);
    // At least once across the outage; the topology dedups by ce_id, which must be the message ID.
    Set<String> ceIds = records.stream().map(RawTopic::ceId).collect(Collectors.toSet());
    assertThat(ceIds).containsExactlyInAnyOrderElementsOf(ids(0, 15));
    assertThat(records)
        .allSatisfy(
            r ->
                assertThat(RawTopic.header(r, "ce_source"))
                    .isEqualTo(ServiceBusHeaders.source("127.0.0.1", "billing")));
  }

  /**
   * Sixteen concurrent callbacks and a low delivery count: while some callbacks still wait for
   * Kafka's answer, the others must not take message after message only to give each back at once
   * (every give-back counts a delivery, and the fifth moves the message to the dead-letter queue).
   */
  @Test
  void concurrentCallbacksWaitOutAnOutageInsteadOfCyclingMessagesToTheDeadLetterQueue() {
    serviceBus.createQueue("invoices", QueueOptions.DEFAULTS.withMaxDeliveryCount(5));
    BridgeApplication bridge =
        BridgeApplication.start(
            BridgeConfigLoader.fromMap(
                Map.ofEntries(
                    Map.entry("kafka.bootstrap.servers", kafka.bootstrapServers()),
                    Map.entry("bridge.auth.enabled", "false"),
                    Map.entry("bridge.http.host", "127.0.0.1"),
                    Map.entry("bridge.http.port", "0"),
                    Map.entry("bridge.kafka.ack-timeout-ms", "1500"),
                    Map.entry("bridge.kafka.readiness-interval-ms", "500"),
                    Map.entry("bridge.servicebus.entities", "invoices"),
                    Map.entry("bridge.servicebus.entity.invoices.queue", "invoices"),
                    Map.entry("bridge.servicebus.entity.invoices.max-concurrent-calls", "16"),
                    Map.entry("bridge.servicebus.entity.invoices.max-auto-lock-renew-ms", "60000"),
                    Map.entry("bridge.servicebus.connection-string", serviceBus.connectionString()),
                    Map.entry("bridge.servicebus.local-mode", "true"),
                    Map.entry("bridge.servicebus.settle-timeout-ms", "5000"),
                    Map.entry("bridge.servicebus.resume-check-interval-ms", "200"))));
    try {
      kafka.stopBroker();
      sendAll("invoices", ids(100, 164));
      await().atMost(WAIT).until(bridge::serviceBusPaused);
      // Well past the ack timeout: every callback that was waiting for Kafka has given up.
      await()
          .during(Duration.ofSeconds(4))
          .atMost(WAIT)
          .until(() -> serviceBus.deadLetters("invoices").isEmpty());
      kafka.restartBroker();
      await().atMost(WAIT).until(() -> serviceBus.completedCount("invoices") == 64);
    } finally {
      bridge.close();
    }
    assertThat(serviceBus.deadLetters("invoices")).isEmpty();
    // One give-back per callback that was waiting for Kafka when it went away, at most.
    assertThat(serviceBus.abandonedCount("invoices")).isLessThanOrEqualTo(16);
  }

  private static List<String> ids(int from, int to) {
    return IntStream.range(from, to).mapToObj(i -> "bill-" + i).toList();
  }

  private static void sendAll(List<String> ids) {
    sendAll("billing", ids);
  }

  private static void sendAll(String queue, List<String> ids) {
    try (ServiceBusSenderClient sender =
        new ServiceBusClientBuilder()
            .connectionString(serviceBus.connectionString())
            .sender()
            .queueName(queue)
            .buildClient()) {
      for (String id : ids) {
        sender.sendMessage(new ServiceBusMessage("{\"id\":\"" + id + "\"}").setMessageId(id));
      }
    }
  }
}
