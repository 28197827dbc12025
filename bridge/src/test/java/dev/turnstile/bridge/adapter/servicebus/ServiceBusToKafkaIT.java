package dev.turnstile.bridge.adapter.servicebus;

import static dev.turnstile.bridge.adapter.servicebus.RawTopic.ceId;
import static dev.turnstile.bridge.adapter.servicebus.RawTopic.header;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.azure.core.amqp.AmqpRetryOptions;
import com.azure.core.util.BinaryData;
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
import dev.turnstile.contracttest.CloudEventsCheck;
import dev.turnstile.schemas.CloudEventHeaders;
import dev.turnstile.schemas.ServiceBusHeaders;
import dev.turnstile.testkit.EmbeddedKafka;
import dev.turnstile.testkit.servicebus.BrokeredMessage;
import dev.turnstile.testkit.servicebus.QueueOptions;
import dev.turnstile.testkit.servicebus.ServiceBusDouble;
import io.cloudevents.CloudEvent;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
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

/**
 * The Service Bus source end to end: the real SDK against the double, our use case, the real Kafka
 * publisher against an in-process broker. A slow Kafka is our own port wrapped to hold its acks.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ServiceBusToKafkaIT {

  private static final Duration WAIT = Duration.ofSeconds(60);

  static EmbeddedKafka kafka;
  static ServiceBusDouble serviceBus;

  private final List<AutoCloseable> running = new ArrayList<>();
  private final MeterRegistry registry = new SimpleMeterRegistry();

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
    serviceBus.setLockLostOnRenew(false);
    Collections.reverse(running);
    for (AutoCloseable closeable : running) {
      closeable.close();
    }
  }

  @Test
  void kafkaAckSlowerThanTheLockCompletesOnceWithRenewals() {
    serviceBus.createQueue("slow", QueueOptions.DEFAULTS.withLockDuration(Duration.ofSeconds(2)));
    send("slow", new ServiceBusMessage("{\"kWh\":7}").setMessageId("slow-1"));

    startSource(
        queue("slow", "slow.raw.v1"),
        publisher -> new DelayedPublisher(publisher, (topic, event) -> Duration.ofSeconds(5)));

    await().atMost(WAIT).until(() -> serviceBus.completedCount("slow") == 1);
    assertThat(serviceBus.renewCount("slow")).isPositive();
    assertThat(serviceBus.abandonedCount("slow")).isZero();
    assertThat(RawTopic.readAll(kafka.bootstrapServers(), "slow.raw.v1"))
        .singleElement()
        .satisfies(record -> assertThat(ceId(record)).isEqualTo("slow-1"));
  }

  @Test
  void poisonMessagesAreDeadLetteredWithReasonWhileTheirNeighboursFlow() {
    serviceBus.createQueue("poison");
    Map<String, String> entity = queue("poison", "poison.raw.v1");
    entity.put("key", "property:account");
    ServiceBusMessage good = new ServiceBusMessage("{\"n\":1}").setMessageId("p-1");
    good.getApplicationProperties().put("account", "acc-1");
    good.getApplicationProperties().put("mergeKey", "session-9");
    good.setSubject("billing-record").setContentType("application/json").setCorrelationId("c-1");
    ServiceBusMessage noKey = new ServiceBusMessage("{\"n\":2}").setMessageId("p-2");
    ServiceBusMessage tooLarge =
        new ServiceBusMessage(BinaryData.fromBytes(new byte[8 * 1024])).setMessageId("p-3");
    tooLarge.getApplicationProperties().put("account", "acc-3");
    ServiceBusMessage noMessageId = new ServiceBusMessage("{\"n\":4}");
    noMessageId.getApplicationProperties().put("account", "acc-4");
    for (ServiceBusMessage message : List.of(good, noKey, tooLarge, noMessageId)) {
      send("poison", message);
    }

    startSource(entity, UnaryOperator.identity());

    await().atMost(WAIT).until(() -> serviceBus.deadLetters("poison").size() == 2);
    await().atMost(WAIT).until(() -> serviceBus.completedCount("poison") == 2);
    Map<String, BrokeredMessage> dead =
        serviceBus.deadLetters("poison").stream()
            .collect(Collectors.toMap(BrokeredMessage::messageId, m -> m));
    assertThat(dead.get("p-2").deadLetterReason()).isEqualTo("MissingKey");
    assertThat(dead.get("p-2").deadLetterErrorDescription()).contains("property:account");
    assertThat(dead.get("p-3").deadLetterReason()).isEqualTo("KafkaRejected");
    assertThat(dead.get("p-3").deadLetterErrorDescription()).containsIgnoringCase("large");

    List<ConsumerRecord<String, byte[]>> records =
        RawTopic.readAll(kafka.bootstrapServers(), "poison.raw.v1");
    assertThat(records).extracting(RawTopic::ceId).containsExactlyInAnyOrder("p-1", "poison/4");
    ConsumerRecord<String, byte[]> first =
        records.stream().filter(r -> "p-1".equals(ceId(r))).findFirst().orElseThrow();
    assertThat(first.key()).isEqualTo("acc-1");
    assertThat(new String(first.value())).isEqualTo("{\"n\":1}");
    assertThat(header(first, ServiceBusHeaders.property("mergeKey"))).isEqualTo("session-9");
    assertThat(header(first, ServiceBusHeaders.property("account"))).isEqualTo("acc-1");
    assertThat(header(first, CloudEventHeaders.SOURCE))
        .isEqualTo(ServiceBusHeaders.source("127.0.0.1", "poison"));
    assertThat(header(first, CloudEventHeaders.TYPE)).isEqualTo(ServiceBusHeaders.MESSAGE_TYPE);
    assertThat(header(first, CloudEventHeaders.SUBJECT)).isEqualTo("billing-record");
    assertThat(header(first, CloudEventHeaders.CONTENT_TYPE)).isEqualTo("application/json");
    assertThat(header(first, CloudEventHeaders.TIME)).isNotBlank();
    assertThat(header(first, ServiceBusHeaders.SEQUENCE_NUMBER)).isEqualTo("1");
    assertThat(header(first, ServiceBusHeaders.DELIVERY_COUNT)).isEqualTo("1");
    assertThat(header(first, ServiceBusHeaders.CORRELATION_ID)).isEqualTo("c-1");
    assertThat(header(first, ServiceBusHeaders.ENTITY)).isEqualTo("poison");
    assertThat(header(first, ServiceBusHeaders.ENQUEUED_TIME)).isNotBlank();
    assertThat(counter("poison", "dead-lettered", "KafkaRejected")).isEqualTo(1);
    assertThat(counter("poison", "dead-lettered", "MissingKey")).isEqualTo(1);
  }

  /**
   * Issue 8, cases 4, 5 and 7 through the real SDK: the inputs the issue reported, and CloudEvents
   * in both of Service Bus's modes; every record on the topic reads with the standard deserializer.
   */
  @Test
  void hostileJsonIsDeadLetteredAndCloudEventsKeepTheirOwnAttributes() {
    serviceBus.createQueue("strict");
    String first = "{\"sessionId\":\"tr-1\",\"userId\":\"u-3\",\"kwhTotal\":4.0,\"dollars\":1.00}";
    send("strict", json(first + "\n{\"sessionId\":\"tr-1\",\"dollars\":9.99}", "trailing"));
    send(
        "strict",
        json(
            "{\"sessionId\":\"dk-1\",\"userId\":\"u-3\",\"kwhTotal\":4.0,"
                + "\"dollars\":1.00,\"dollars\":9.99}",
            "duplicate"));
    send("strict", json("{\"a\":" + "[".repeat(998) + "]".repeat(998) + "}", "deep"));
    ServiceBusMessage structured =
        new ServiceBusMessage(
                "{\"specversion\":\"1.0\",\"id\":\"evt-7\",\"source\":\"/eventgrid/billing\","
                    + "\"type\":\"com.example.billing.v1\",\"time\":\"2026-01-02T03:04:05Z\","
                    + "\"subject\":\"s-7\",\"tenant\":\"t1\","
                    + "\"data\":{\"sessionId\":\"s-7\",\"dollars\":1.00}}")
            .setMessageId("sb-structured")
            .setContentType("application/cloudevents+json; charset=utf-8");
    structured.getApplicationProperties().put("mergeKey", "s-7");
    send("strict", structured);
    ServiceBusMessage binary =
        new ServiceBusMessage("{\"sessionId\":\"s-8\",\"dollars\":2.50}")
            .setMessageId("sb-binary")
            .setContentType("application/json");
    binary.getApplicationProperties().put("cloudEvents:specversion", "1.0");
    binary.getApplicationProperties().put("cloudEvents:id", "evt-8");
    binary.getApplicationProperties().put("cloudEvents:source", "/meters/8");
    binary.getApplicationProperties().put("cloudEvents:type", "com.example.reading.v1");
    binary.getApplicationProperties().put("cloudEvents:attempt", 2);
    binary.getApplicationProperties().put("mergeKey", "s-8");
    send("strict", binary);
    send("strict", json(first, "plain"));

    startSource(queue("strict", "strict.raw.v1"), UnaryOperator.identity());

    await().atMost(WAIT).until(() -> serviceBus.deadLetters("strict").size() == 3);
    await().atMost(WAIT).until(() -> serviceBus.completedCount("strict") == 3);
    Map<String, BrokeredMessage> dead =
        serviceBus.deadLetters("strict").stream()
            .collect(Collectors.toMap(BrokeredMessage::messageId, m -> m));
    assertThat(dead.get("trailing").deadLetterReason()).isEqualTo("MalformedJson");
    assertThat(dead.get("trailing").deadLetterErrorDescription())
        .contains("unexpected content after the JSON value");
    assertThat(dead.get("duplicate").deadLetterReason()).isEqualTo("MalformedJson");
    assertThat(dead.get("duplicate").deadLetterErrorDescription())
        .contains("duplicate key \"dollars\"");
    assertThat(dead.get("deep").deadLetterReason()).isEqualTo("JsonLimitExceeded");
    assertThat(dead.get("deep").deadLetterErrorDescription()).contains("maxDepth");

    List<ConsumerRecord<String, byte[]>> records =
        RawTopic.readAll(kafka.bootstrapServers(), "strict.raw.v1");
    Map<String, CloudEvent> events = new HashMap<>();
    for (ConsumerRecord<String, byte[]> record : records) {
      CloudEvent event =
          CloudEventsCheck.assertBinaryCloudEvent(record.topic(), record.headers(), record.value());
      events.put(event.getId(), event);
    }
    assertThat(events).containsOnlyKeys("evt-7", "evt-8", "plain");
    CloudEvent fromEventGrid = events.get("evt-7");
    assertThat(fromEventGrid.getSource().toString()).isEqualTo("/eventgrid/billing");
    assertThat(fromEventGrid.getType()).isEqualTo("com.example.billing.v1");
    assertThat(fromEventGrid.getTime()).isEqualTo(OffsetDateTime.parse("2026-01-02T03:04:05Z"));
    assertThat(fromEventGrid.getSubject()).isEqualTo("s-7");
    assertThat(fromEventGrid.getDataContentType()).isEqualTo("application/json");
    assertThat(fromEventGrid.getExtension("tenant")).isEqualTo("t1");
    assertThat(new String(fromEventGrid.getData().toBytes(), StandardCharsets.UTF_8))
        .isEqualTo("{\"sessionId\":\"s-7\",\"dollars\":1.00}");
    assertThat(fromEventGrid.getExtension("sbsequencenumber")).isNotNull();
    CloudEvent binaryMode = events.get("evt-8");
    assertThat(binaryMode.getSource().toString()).isEqualTo("/meters/8");
    assertThat(binaryMode.getType()).isEqualTo("com.example.reading.v1");
    assertThat(binaryMode.getExtension("attempt")).isEqualTo("2");
    ConsumerRecord<String, byte[]> binaryRecord =
        records.stream().filter(r -> "evt-8".equals(ceId(r))).findFirst().orElseThrow();
    assertThat(header(binaryRecord, ServiceBusHeaders.property("mergeKey"))).isEqualTo("s-8");
    assertThat(header(binaryRecord, ServiceBusHeaders.property("cloudEvents:id"))).isNull();
    assertThat(events.get("plain").getType()).isEqualTo(ServiceBusHeaders.MESSAGE_TYPE);
  }

  private static ServiceBusMessage json(String body, String messageId) {
    return new ServiceBusMessage(body).setMessageId(messageId).setContentType("application/json");
  }

  @Test
  void lockLostAfterTheKafkaAckRedeliversAndBothCopiesCarryTheSameCeId() {
    serviceBus.createQueue("lost", QueueOptions.DEFAULTS.withLockDuration(Duration.ofSeconds(1)));
    serviceBus.setLockLostOnRenew(true);
    send("lost", new ServiceBusMessage("{\"n\":1}").setMessageId("lost-1"));
    AtomicInteger publishes = new AtomicInteger();

    // The first ack is held past the lock, which cannot be renewed: the complete is refused.
    startSource(
        queue("lost", "lost.raw.v1"),
        publisher ->
            new DelayedPublisher(
                publisher,
                (topic, event) ->
                    publishes.incrementAndGet() == 1 ? Duration.ofMillis(2500) : Duration.ZERO));

    await().atMost(WAIT).until(() -> serviceBus.completedCount("lost") == 1);
    List<ConsumerRecord<String, byte[]>> records =
        RawTopic.readAll(kafka.bootstrapServers(), "lost.raw.v1");
    assertThat(records).extracting(RawTopic::ceId).containsExactly("lost-1", "lost-1");
    assertThat(records)
        .extracting(r -> header(r, ServiceBusHeaders.DELIVERY_COUNT))
        .containsExactly("1", "2");
    assertThat(counter("lost", "lock-lost", "none")).isEqualTo(1);
    assertThat(serviceBus.deadLetters("lost")).isEmpty();
  }

  @Test
  void closeWithCallbacksInFlightLosesNothing() throws Exception {
    serviceBus.createQueue("closing");
    List<String> ids = IntStream.range(0, 20).mapToObj(i -> "c-" + i).toList();
    sendAll("closing", ids);
    Map<String, String> entity = queue("closing", "closing.raw.v1");
    entity.put("max-concurrent-calls", "2");
    ServiceBusMessageSource source =
        startSource(
            entity, publisher -> new DelayedPublisher(publisher, (t, e) -> Duration.ofMillis(300)));

    await().atMost(WAIT).until(() -> serviceBus.completedCount("closing") >= 3);
    source.close(Duration.ofSeconds(10));

    Set<String> stillQueued =
        serviceBus.activeMessages("closing").stream()
            .map(BrokeredMessage::messageId)
            .collect(Collectors.toSet());
    Set<String> inKafka =
        RawTopic.readAll(kafka.bootstrapServers(), "closing.raw.v1").stream()
            .map(RawTopic::ceId)
            .collect(Collectors.toSet());
    Set<String> gone = new HashSet<>(ids);
    gone.removeAll(stillQueued);
    assertThat(stillQueued).isNotEmpty();
    assertThat(serviceBus.completedCount("closing")).isEqualTo(gone.size());
    assertThat(inKafka).containsAll(gone);
    assertThat(serviceBus.deadLetters("closing")).isEmpty();
  }

  @Test
  void sessionOrderHoldsInThePartitionKeyedBySessionId() {
    serviceBus.createQueue("sessions", QueueOptions.DEFAULTS.withSessions());
    kafka.createTopics(List.of(new NewTopic("sessions.raw.v1", 3, (short) 1)));
    List<String> sessions = List.of("s-1", "s-2", "s-3");
    for (int i = 0; i < 5; i++) {
      for (String session : sessions) {
        send("sessions", new ServiceBusMessage(session + "/" + i).setSessionId(session));
      }
    }
    Map<String, String> entity = queue("sessions", "sessions.raw.v1");
    entity.put("sessions", "true");
    entity.put("key", "session-id");
    entity.put("max-concurrent-sessions", "2");
    startSource(entity, UnaryOperator.identity());

    await().atMost(WAIT).until(() -> serviceBus.completedCount("sessions") == 15);
    Map<String, List<ConsumerRecord<String, byte[]>>> bySession =
        RawTopic.readAll(kafka.bootstrapServers(), "sessions.raw.v1").stream()
            .collect(Collectors.groupingBy(ConsumerRecord::key));
    for (String session : sessions) {
      List<ConsumerRecord<String, byte[]>> records = bySession.get(session);
      assertThat(records)
          .extracting(ConsumerRecord::partition)
          .containsOnly(records.get(0).partition());
      records.sort((a, b) -> Long.compare(a.offset(), b.offset()));
      assertThat(records)
          .extracting(r -> new String(r.value()))
          .containsExactly(
              IntStream.range(0, 5).mapToObj(i -> session + "/" + i).toArray(String[]::new));
      assertThat(records)
          .extracting(r -> header(r, ServiceBusHeaders.SESSION_ID))
          .containsOnly(session);
    }
  }

  @Test
  void aBusyEntityDoesNotStarveTheOthers() {
    serviceBus.createQueue("busy").createQueue("quiet");
    sendAll("busy", IntStream.range(0, 40).mapToObj(i -> "b-" + i).toList());
    Map<String, String> values = new HashMap<>();
    values.put("bridge.servicebus.entities", "busy,quiet");
    values.putAll(prefixed("busy", queue("busy", "busy.raw.v1")));
    values.putAll(prefixed("quiet", queue("quiet", "quiet.raw.v1")));
    startSourceFrom(
        values,
        publisher ->
            new DelayedPublisher(
                publisher,
                (topic, event) ->
                    topic.equals("busy.raw.v1") ? Duration.ofMillis(200) : Duration.ZERO));
    await().atMost(WAIT).until(() -> serviceBus.completedCount("busy") >= 1);

    sendAll("quiet", List.of("q-1", "q-2", "q-3"));

    await().atMost(WAIT).until(() -> serviceBus.completedCount("quiet") == 3);
    assertThat(serviceBus.activeMessages("busy")).isNotEmpty();
    await().atMost(WAIT).until(() -> serviceBus.completedCount("busy") == 40);
  }

  // --- wiring, as BridgeApplication does it, with our port wrapped where a test needs it ---

  private static Map<String, String> queue(String queue, String kafkaTopic) {
    kafka.createTopics(List.of(new NewTopic(kafkaTopic, 1, (short) 1)));
    Map<String, String> entity = new HashMap<>();
    entity.put("queue", queue);
    entity.put("kafka-topic", kafkaTopic);
    entity.put("max-auto-lock-renew-ms", "60000");
    return entity;
  }

  private static Map<String, String> prefixed(String name, Map<String, String> entity) {
    return entity.entrySet().stream()
        .collect(
            Collectors.toMap(
                e -> BridgeConfigModel.SERVICEBUS_ENTITY_PREFIX + name + "." + e.getKey(),
                Map.Entry::getValue));
  }

  private ServiceBusMessageSource startSource(
      Map<String, String> entity, UnaryOperator<PublishEventPort> wrap) {
    String name = entity.get("queue");
    Map<String, String> values = new HashMap<>(prefixed(name, entity));
    values.put("bridge.servicebus.entities", name);
    return startSourceFrom(values, wrap);
  }

  private ServiceBusMessageSource startSourceFrom(
      Map<String, String> entities, UnaryOperator<PublishEventPort> wrap) {
    Map<String, String> values = new HashMap<>(entities);
    values.put("kafka.bootstrap.servers", kafka.bootstrapServers());
    values.put("bridge.auth.enabled", "false"); // no HTTP here
    values.put("kafka.producer.max.request.size", "4096");
    values.put("bridge.servicebus.connection-string", serviceBus.connectionString());
    values.put("bridge.servicebus.local-mode", "true");
    values.put("bridge.servicebus.settle-timeout-ms", "15000");
    BridgeConfig config = BridgeConfigLoader.fromMap(values);
    KafkaEventPublisher kafkaPublisher =
        new KafkaEventPublisher(
            config.producerProperties(),
            config.get(BridgeConfigModel.KAFKA_ACK_TIMEOUT_MS),
            100,
            Clock.systemUTC());
    running.add(kafkaPublisher);
    PublishEventPort publisher = wrap.apply(kafkaPublisher);
    Map<String, RelayServiceBusMessageService.Route> routes = new HashMap<>();
    for (ServiceBusConfig.Entity entity : config.serviceBus().entities()) {
      routes.put(
          entity.name(),
          new RelayServiceBusMessageService.Route(
              entity.kafkaTopic(), entity.key(), entity.keyRequired(), BodyValidator.NONE));
    }
    ServiceBusMessageSource source =
        ServiceBusMessageSource.start(
            config.serviceBus(),
            new RelayServiceBusMessageService(publisher, config.serviceBus().namespace(), routes),
            since -> true,
            registry,
            new AmqpRetryOptions().setMaxRetries(3).setTryTimeout(Duration.ofSeconds(10)));
    running.add(source);
    return source;
  }

  private double counter(String entity, String outcome, String reason) {
    Counter counter =
        registry
            .find(ServiceBusMetrics.MESSAGES)
            .tags("entity", entity, "outcome", outcome, "reason", reason)
            .counter();
    return counter == null ? 0 : counter.count();
  }

  private static void sendAll(String queue, List<String> messageIds) {
    try (ServiceBusSenderClient sender = sender(queue)) {
      for (String id : messageIds) {
        sender.sendMessage(new ServiceBusMessage("{\"id\":\"" + id + "\"}").setMessageId(id));
      }
    }
  }

  private static void send(String queue, ServiceBusMessage message) {
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
}
