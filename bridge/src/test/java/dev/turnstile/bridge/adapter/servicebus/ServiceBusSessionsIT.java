package dev.turnstile.bridge.adapter.servicebus;

import static dev.turnstile.bridge.adapter.servicebus.RawTopic.header;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.azure.core.amqp.AmqpRetryOptions;
import com.azure.messaging.servicebus.ServiceBusClientBuilder;
import com.azure.messaging.servicebus.ServiceBusMessage;
import com.azure.messaging.servicebus.ServiceBusSenderClient;
import dev.turnstile.bridge.adapter.kafka.KafkaEventPublisher;
import dev.turnstile.bridge.application.RelayServiceBusMessageService;
import dev.turnstile.bridge.config.BridgeConfig;
import dev.turnstile.bridge.config.BridgeConfigLoader;
import dev.turnstile.bridge.config.BridgeConfigModel;
import dev.turnstile.bridge.config.ServiceBusConfig;
import dev.turnstile.bridge.port.out.BodyValidator;
import dev.turnstile.bridge.port.out.PublishEventPort;
import dev.turnstile.schemas.ServiceBusHeaders;
import dev.turnstile.testkit.EmbeddedKafka;
import dev.turnstile.testkit.servicebus.QueueOptions;
import dev.turnstile.testkit.servicebus.ServiceBusDouble;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.LoggerFactory;

/**
 * A session-enabled queue of many short sessions (one per device or order, the usual design) with
 * one session slot, through the real SDK against the double: the slot takes the next session once
 * the current one has had no message for {@code session-idle-timeout-ms}, at once, so the queue
 * drains at the speed of the callbacks, not one session per minute (issue 25, item 3).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ServiceBusSessionsIT {

  static EmbeddedKafka kafka;
  static ServiceBusDouble serviceBus;

  private final List<AutoCloseable> running = new ArrayList<>();

  @BeforeAll
  static void start() {
    kafka = EmbeddedKafka.start(null);
    serviceBus = ServiceBusDouble.start();
  }

  @AfterAll
  static void stop() {
    serviceBus.close();
    kafka.close();
  }

  @AfterEach
  void closeRunning() throws Exception {
    Collections.reverse(running);
    for (AutoCloseable closeable : running) {
      closeable.close();
    }
  }

  @Test
  void fiftyShortSessionsThroughOneSlotDrainInSecondsInOrder() {
    serviceBus.createQueue("many", QueueOptions.DEFAULTS.withSessions());
    kafka.createTopics(List.of(new NewTopic("many.raw.v1", 3, (short) 1)));
    List<String> sessions = IntStream.range(0, 50).mapToObj(i -> "device-" + i).toList();
    try (ServiceBusSenderClient sender = sender("many")) {
      for (int i = 0; i < 2; i++) {
        for (String session : sessions) {
          sender.sendMessage(new ServiceBusMessage(session + "/" + i).setSessionId(session));
        }
      }
    }
    // The entity keys' defaults: one session slot, the default idle timeout; the SDK's default
    // retry options (a 60 s try timeout), so that only the idle timeout can end a session early.
    Map<String, String> entity = new HashMap<>();
    entity.put("queue", "many");
    entity.put("kafka-topic", "many.raw.v1");
    entity.put("sessions", "true");
    entity.put("key", "session-id");

    long started = System.nanoTime();
    startSource("many", entity, UnaryOperator.identity());
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(50))
        .until(() -> serviceBus.completedCount("many") == 100);
    double seconds = (System.nanoTime() - started) / 1e9;
    System.out.printf(
        "ServiceBusSessionsIT: 50 sessions of 2 messages through 1 slot in %.2f s: %.1f"
            + " sessions/s%n",
        seconds, 50 / seconds);

    Map<String, List<ConsumerRecord<String, byte[]>>> bySession =
        RawTopic.readAll(kafka.bootstrapServers(), "many.raw.v1").stream()
            .collect(Collectors.groupingBy(ConsumerRecord::key));
    assertThat(bySession).containsOnlyKeys(sessions);
    for (String session : sessions) {
      List<ConsumerRecord<String, byte[]>> records = new ArrayList<>(bySession.get(session));
      records.sort((a, b) -> Long.compare(a.offset(), b.offset()));
      assertThat(records)
          .extracting(r -> new String(r.value()))
          .containsExactly(session + "/0", session + "/1");
      assertThat(records)
          .extracting(r -> header(r, ServiceBusHeaders.DELIVERY_COUNT))
          .containsOnly("1");
    }
    assertThat(serviceBus.abandonedCount("many")).isZero();
  }

  /**
   * What the slot does when a session goes idle (it closes the session's link and accepts the next
   * session) the double must answer as Service Bus does: the session is free again, and a message
   * sent to it later is delivered once, on the session accepted anew, after the earlier ones.
   */
  @Test
  void aMessageSentAfterItsSessionWentIdleIsTakenWithTheSessionAgainInOrder() {
    serviceBus.createQueue("later", QueueOptions.DEFAULTS.withSessions());
    kafka.createTopics(List.of(new NewTopic("later.raw.v1", 1, (short) 1)));
    Map<String, String> entity = new HashMap<>();
    entity.put("queue", "later");
    entity.put("kafka-topic", "later.raw.v1");
    entity.put("sessions", "true");
    entity.put("key", "session-id");
    startSource("later", entity, UnaryOperator.identity());
    try (ServiceBusSenderClient sender = sender("later")) {
      sender.sendMessage(new ServiceBusMessage("order-7/0").setSessionId("order-7"));
      await().atMost(Duration.ofSeconds(20)).until(() -> serviceBus.completedCount("later") == 1);
      await()
          .atMost(Duration.ofSeconds(20))
          .until(() -> serviceBus.lockedSessionCount("later") == 0);

      sender.sendMessage(new ServiceBusMessage("order-7/1").setSessionId("order-7"));
      sender.sendMessage(new ServiceBusMessage("order-7/2").setSessionId("order-7"));
    }

    await().atMost(Duration.ofSeconds(20)).until(() -> serviceBus.completedCount("later") == 3);
    List<ConsumerRecord<String, byte[]>> records =
        RawTopic.readAll(kafka.bootstrapServers(), "later.raw.v1");
    assertThat(records)
        .extracting(r -> new String(r.value()))
        .containsExactly("order-7/0", "order-7/1", "order-7/2");
    assertThat(records)
        .extracting(r -> header(r, ServiceBusHeaders.DELIVERY_COUNT))
        .containsOnly("1");
    assertThat(serviceBus.messageCount("later")).isZero();
  }

  /**
   * With no session to take, Service Bus answers each accept with a timeout after the try timeout
   * (here 2 s): the slot asks again, quietly, and takes a session as soon as one has a message.
   */
  @Test
  void anIdleSessionEntityWaitsQuietlyAndTakesTheNextSessionAtOnce() {
    serviceBus.createQueue("quiet", QueueOptions.DEFAULTS.withSessions());
    kafka.createTopics(List.of(new NewTopic("quiet.raw.v1", 1, (short) 1)));
    Map<String, String> entity = new HashMap<>();
    entity.put("queue", "quiet");
    entity.put("kafka-topic", "quiet.raw.v1");
    entity.put("sessions", "true");
    entity.put("key", "session-id");
    ListAppender<ILoggingEvent> log = new ListAppender<>();
    log.start();
    Logger receiverLog = (Logger) LoggerFactory.getLogger(ServiceBusEntityReceiver.class);
    receiverLog.addAppender(log);
    try {
      startSource(
          "quiet",
          entity,
          UnaryOperator.identity(),
          new AmqpRetryOptions().setTryTimeout(Duration.ofSeconds(2)));

      await()
          .during(Duration.ofSeconds(5))
          .atMost(Duration.ofSeconds(7))
          .until(() -> log.list.stream().noneMatch(e -> e.getLevel().isGreaterOrEqual(Level.WARN)));
      try (ServiceBusSenderClient sender = sender("quiet")) {
        sender.sendMessage(new ServiceBusMessage("device-9/0").setSessionId("device-9"));
      }

      await().atMost(Duration.ofSeconds(10)).until(() -> serviceBus.completedCount("quiet") == 1);
      assertThat(log.list).noneMatch(e -> e.getLevel().isGreaterOrEqual(Level.WARN));
    } finally {
      receiverLog.detachAppender(log);
    }
  }

  private void startSource(
      String name, Map<String, String> entity, UnaryOperator<PublishEventPort> wrap) {
    startSource(name, entity, wrap, new AmqpRetryOptions());
  }

  /** Wired as BridgeApplication wires it, with the SDK's {@code retry} options. */
  private void startSource(
      String name,
      Map<String, String> entity,
      UnaryOperator<PublishEventPort> wrap,
      AmqpRetryOptions retry) {
    Map<String, String> values = new HashMap<>();
    entity.forEach(
        (k, v) -> values.put(BridgeConfigModel.SERVICEBUS_ENTITY_PREFIX + name + "." + k, v));
    values.put("bridge.servicebus.entities", name);
    values.put("kafka.bootstrap.servers", kafka.bootstrapServers());
    values.put("bridge.auth.enabled", "false");
    values.put("bridge.servicebus.connection-string", serviceBus.connectionString());
    values.put("bridge.servicebus.local-mode", "true");
    BridgeConfig config = BridgeConfigLoader.fromMap(values);
    KafkaEventPublisher kafkaPublisher =
        new KafkaEventPublisher(
            config.producerProperties(),
            config.get(BridgeConfigModel.KAFKA_ACK_TIMEOUT_MS),
            100,
            Clock.systemUTC());
    running.add(kafkaPublisher);
    Map<String, RelayServiceBusMessageService.Route> routes = new HashMap<>();
    for (ServiceBusConfig.Entity e : config.serviceBus().entities()) {
      routes.put(
          e.name(),
          new RelayServiceBusMessageService.Route(
              e.kafkaTopic(), e.key(), e.keyRequired(), BodyValidator.NONE));
    }
    ServiceBusMessageSource source =
        ServiceBusMessageSource.start(
            config.serviceBus(),
            new RelayServiceBusMessageService(
                wrap.apply(kafkaPublisher), config.serviceBus().namespace(), routes),
            since -> true,
            new SimpleMeterRegistry(),
            retry);
    running.add(source);
  }

  private static ServiceBusSenderClient sender(String queue) {
    return new ServiceBusClientBuilder()
        .connectionString(serviceBus.connectionString())
        .sender()
        .queueName(queue)
        .buildClient();
  }
}
