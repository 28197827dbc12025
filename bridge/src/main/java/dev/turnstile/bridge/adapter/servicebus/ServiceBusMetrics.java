package dev.turnstile.bridge.adapter.servicebus;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.function.Supplier;

/**
 * Meters of one entity, all tagged {@code entity}: {@code turnstile.bridge.servicebus.messages} by
 * {@code outcome} (received, completed, abandoned, dead-lettered, lock-lost) and {@code reason}
 * ({@code none} where there is none), {@code ...in-flight} and {@code ...paused} gauges, and the
 * {@code ...kafka-ack} timer (callback start to Kafka's acknowledgement).
 */
final class ServiceBusMetrics {

  static final String MESSAGES = "turnstile.bridge.servicebus.messages";
  static final String IN_FLIGHT = "turnstile.bridge.servicebus.in-flight";
  static final String PAUSED = "turnstile.bridge.servicebus.paused";
  static final String KAFKA_ACK = "turnstile.bridge.servicebus.kafka-ack";

  private final MeterRegistry registry;
  private final String entity;
  private final Timer kafkaAck;

  ServiceBusMetrics(
      MeterRegistry registry, String entity, Supplier<Number> inFlight, Supplier<Number> paused) {
    this.registry = registry;
    this.entity = entity;
    Gauge.builder(IN_FLIGHT, inFlight).tag("entity", entity).register(registry);
    Gauge.builder(PAUSED, paused)
        .description("1 while pulling is paused because Kafka is unavailable")
        .tag("entity", entity)
        .register(registry);
    this.kafkaAck =
        Timer.builder(KAFKA_ACK)
            .description("From the message callback to Kafka's acknowledgement")
            .tag("entity", entity)
            .register(registry);
  }

  void received() {
    count("received", "none");
  }

  void completed() {
    count("completed", "none");
  }

  void abandoned(String reason) {
    count("abandoned", reason);
  }

  void deadLettered(String reason) {
    count("dead-lettered", reason);
  }

  void lockLost() {
    count("lock-lost", "none");
  }

  void kafkaAck(Duration latency) {
    kafkaAck.record(latency);
  }

  private void count(String outcome, String reason) {
    Counter.builder(MESSAGES)
        .description("Service Bus messages by outcome")
        .tag("entity", entity)
        .tag("outcome", outcome)
        .tag("reason", reason)
        .register(registry)
        .increment();
  }
}
