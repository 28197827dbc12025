package dev.turnstile.bridge.application;

import com.fasterxml.jackson.databind.JsonNode;
import dev.turnstile.bridge.config.KeyRule;
import dev.turnstile.bridge.port.in.RelayServiceBusMessageUseCase;
import dev.turnstile.bridge.port.out.PublishEventPort;
import dev.turnstile.bridge.port.out.PublishException;
import dev.turnstile.schemas.Json;
import dev.turnstile.schemas.ServiceBusHeaders;
import io.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import java.io.IOException;
import java.net.URI;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

/**
 * Turns a Service Bus message into a CloudEvent (attributes and Service Bus metadata as {@code
 * ce_*} headers, application properties as {@code sb-prop-*} headers, body unchanged), keys it as
 * its entity is configured, writes it, and maps the result to a settlement: ack = complete,
 * retriable = abandon (and pause), never writable = dead-letter with a reason.
 */
public final class RelayServiceBusMessageService implements RelayServiceBusMessageUseCase {

  /** Service Bus caps the dead-letter description; keep ours well below. */
  static final int MAX_DESCRIPTION = 1024;

  private final PublishEventPort publisher;
  private final String namespace;
  private final Map<String, Route> routes;

  /**
   * @param namespace the namespace as {@code ce_source} names it
   * @param routes per configured entity name
   */
  public RelayServiceBusMessageService(
      PublishEventPort publisher, String namespace, Map<String, Route> routes) {
    this.publisher = publisher;
    this.namespace = namespace;
    this.routes = Map.copyOf(routes);
  }

  /**
   * Where and how one entity's messages go.
   *
   * @param kafkaTopic full topic name
   * @param key where the record key comes from
   * @param keyRequired dead-letter a message without that key (else key it by its event ID)
   * @param validator checks the body; {@link BodyValidator#NONE} for none
   */
  public record Route(
      String kafkaTopic, KeyRule key, boolean keyRequired, BodyValidator validator) {}

  @Override
  public CompletionStage<Settlement> relay(ReceivedMessage message) {
    Route route = routes.get(message.entity());
    if (route == null) {
      throw new IllegalArgumentException("no route for entity " + message.entity());
    }
    String eventId = eventId(message);
    String key = key(route.key(), message, eventId);
    if (key == null) {
      if (route.keyRequired()) {
        return done(
            new DeadLetter(
                DeadLetterReasons.MISSING_KEY,
                "no " + route.key() + " on the message to key the Kafka record by"));
      }
      key = eventId;
    }
    var violation = route.validator().violation(message.body());
    if (violation.isPresent()) {
      return done(new DeadLetter(DeadLetterReasons.SCHEMA_VIOLATION, truncate(violation.get())));
    }
    try {
      return publisher
          .publish(route.kafkaTopic(), key, toCloudEvent(message, eventId), headers(message))
          .handle(
              (published, failure) ->
                  failure == null
                      ? new Complete(
                          eventId, published.topic(), published.partition(), published.offset())
                      : settlementOf(failure));
    } catch (RuntimeException e) {
      return done(settlementOf(e));
    }
  }

  /** {@code messageId}, or {@code <entityPath>/<sequenceNumber>} when the sender set none. */
  static String eventId(ReceivedMessage message) {
    String id = message.messageId();
    return id == null || id.isEmpty() ? message.entityPath() + "/" + message.sequenceNumber() : id;
  }

  static String key(KeyRule rule, ReceivedMessage message, String eventId) {
    String key =
        switch (rule.source()) {
          case SESSION_ID -> message.sessionId();
          case PARTITION_KEY -> message.partitionKey();
          case MESSAGE_ID -> eventId;
          case PROPERTY -> {
            Object value = message.applicationProperties().get(rule.argument());
            yield value == null ? null : String.valueOf(value);
          }
          case POINTER -> pointer(message.body(), rule.argument());
        };
    return key == null || key.isEmpty() ? null : key;
  }

  private static String pointer(byte[] body, String pointer) {
    try {
      JsonNode node = Json.mapper().readTree(body).at(pointer);
      return node.isTextual() || node.isNumber() ? node.asText() : null;
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  private CloudEvent toCloudEvent(ReceivedMessage message, String eventId) {
    CloudEventBuilder event =
        CloudEventBuilder.v1()
            .withId(eventId)
            .withSource(URI.create(ServiceBusHeaders.source(namespace, message.entityPath())))
            .withType(ServiceBusHeaders.MESSAGE_TYPE)
            .withTime(message.enqueuedTime())
            .withExtension(extension(ServiceBusHeaders.SEQUENCE_NUMBER), message.sequenceNumber())
            .withExtension(
                extension(ServiceBusHeaders.ENQUEUED_TIME), message.enqueuedTime().toString())
            // The SDK reports the raw AMQP header (0 first); the contract counts from 1.
            .withExtension(extension(ServiceBusHeaders.DELIVERY_COUNT), message.deliveryCount() + 1)
            .withExtension(extension(ServiceBusHeaders.ENTITY), message.entityPath())
            .withData(message.body());
    if (message.subject() != null) {
      event.withSubject(message.subject());
    }
    if (message.contentType() != null) {
      event.withDataContentType(message.contentType());
    }
    if (message.correlationId() != null) {
      event.withExtension(extension(ServiceBusHeaders.CORRELATION_ID), message.correlationId());
    }
    if (message.sessionId() != null) {
      event.withExtension(extension(ServiceBusHeaders.SESSION_ID), message.sessionId());
    }
    return event.build();
  }

  private static String extension(String header) {
    return header.substring("ce_".length());
  }

  private static Map<String, String> headers(ReceivedMessage message) {
    Map<String, String> headers = new LinkedHashMap<>();
    message
        .applicationProperties()
        .forEach(
            (name, value) -> {
              if (value != null) {
                headers.put(ServiceBusHeaders.property(name), String.valueOf(value));
              }
            });
    return headers;
  }

  private static Settlement settlementOf(Throwable failure) {
    Throwable cause = failure instanceof CompletionException ? failure.getCause() : failure;
    if (cause instanceof PublishException publish) {
      return switch (publish.reason()) {
        case SATURATED -> new Abandon("saturated", publish.getMessage());
        case UNAVAILABLE -> new Abandon("unavailable", publish.getMessage());
        case REJECTED ->
            new DeadLetter(DeadLetterReasons.KAFKA_REJECTED, truncate(publish.getMessage()));
      };
    }
    return new Abandon("error", String.valueOf(cause));
  }

  private static String truncate(String text) {
    String value = text == null ? "" : text;
    return value.length() <= MAX_DESCRIPTION ? value : value.substring(0, MAX_DESCRIPTION);
  }

  private static CompletionStage<Settlement> done(Settlement settlement) {
    return CompletableFuture.completedFuture(settlement);
  }
}
