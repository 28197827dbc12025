package dev.turnstile.bridge.application;

import com.fasterxml.jackson.databind.JsonNode;
import dev.turnstile.bridge.application.ServiceBusEvents.Mapped;
import dev.turnstile.bridge.application.ServiceBusEvents.Mapping;
import dev.turnstile.bridge.application.ServiceBusEvents.Refused;
import dev.turnstile.bridge.port.in.RelayServiceBusMessageUseCase;
import dev.turnstile.bridge.port.out.BodyValidator;
import dev.turnstile.bridge.port.out.PublishEventPort;
import dev.turnstile.bridge.port.out.PublishException;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

/**
 * Turns a Service Bus message into a CloudEvent ({@link ServiceBusEvents}: plain, structured or
 * AMQP-binary CloudEvent; JSON data read strictly), keys it as its entity is configured, checks it
 * against the entity's schema, writes it, and maps the result to a settlement: ack = complete,
 * retriable = abandon (and pause), never writable = dead-letter with a reason.
 */
public final class RelayServiceBusMessageService implements RelayServiceBusMessageUseCase {

  /** Service Bus caps the dead-letter description; keep ours well below. */
  static final int MAX_DESCRIPTION = 1024;

  private final PublishEventPort publisher;
  private final ServiceBusEvents events;
  private final Map<String, Route> routes;

  /**
   * @param namespace the namespace as {@code ce_source} names it
   * @param credential how the bridge reads the entities ({@code sasKeyName} or {@code
   *     azureClientId} and its value, or nothing), recorded with the entity as the Auth Context of
   *     every event ({@link dev.turnstile.schemas.AuthContext#serviceBus})
   * @param routes per configured entity name
   */
  public RelayServiceBusMessageService(
      PublishEventPort publisher,
      String namespace,
      Map<String, String> credential,
      Map<String, Route> routes) {
    this.publisher = publisher;
    this.events = new ServiceBusEvents(namespace, credential);
    this.routes = Map.copyOf(routes);
  }

  /** With no credential named in the Auth Context. */
  public RelayServiceBusMessageService(
      PublishEventPort publisher, String namespace, Map<String, Route> routes) {
    this(publisher, namespace, Map.of(), routes);
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
    boolean needsJson =
        route.validator() != BodyValidator.NONE || route.key().source() == KeyRule.Source.POINTER;
    Mapping mapping = events.map(message, eventId, needsJson);
    if (mapping instanceof Refused refused) {
      return done(deadLetter(refused.deadLetter().reason(), refused.deadLetter().description()));
    }
    Mapped mapped = (Mapped) mapping;
    String key = key(route.key(), message, eventId, mapped.json());
    if (key == null) {
      if (route.keyRequired()) {
        return done(
            deadLetter(
                DeadLetterReasons.MISSING_KEY,
                "no " + route.key() + " on the message to key the Kafka record by"));
      }
      key = eventId;
    }
    if (mapped.json() != null) {
      var violation = route.validator().violation(mapped.json());
      if (violation.isPresent()) {
        return done(deadLetter(DeadLetterReasons.SCHEMA_VIOLATION, violation.get()));
      }
    }
    try {
      return publisher
          .publish(route.kafkaTopic(), key, mapped.event(), mapped.headers())
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

  /**
   * The record key as the entity's rule says, read from the Service Bus message (whatever its
   * CloudEvents mode); a pointer reads the data already read as JSON.
   */
  static String key(KeyRule rule, ReceivedMessage message, String eventId, JsonNode json) {
    String key =
        switch (rule.source()) {
          case SESSION_ID -> message.sessionId();
          case PARTITION_KEY -> message.partitionKey();
          case MESSAGE_ID -> eventId;
          case PROPERTY -> {
            Object value = message.applicationProperties().get(rule.argument());
            yield value == null ? null : String.valueOf(value);
          }
          case POINTER -> pointer(json, rule.argument());
        };
    return key == null || key.isEmpty() ? null : key;
  }

  private static String pointer(JsonNode json, String pointer) {
    if (json == null) {
      return null;
    }
    JsonNode node = json.at(pointer);
    return node.isTextual() || node.isNumber() ? node.asText() : null;
  }

  private static DeadLetter deadLetter(String reason, String description) {
    return new DeadLetter(reason, truncate(description));
  }

  private static Settlement settlementOf(Throwable failure) {
    Throwable cause = failure instanceof CompletionException ? failure.getCause() : failure;
    if (cause instanceof PublishException publish) {
      return switch (publish.reason()) {
        case SATURATED -> new Abandon(AbandonReason.SATURATED, publish.getMessage());
        case UNAVAILABLE -> new Abandon(AbandonReason.UNAVAILABLE, publish.getMessage());
        case REJECTED -> deadLetter(DeadLetterReasons.KAFKA_REJECTED, publish.getMessage());
      };
    }
    return new Abandon(AbandonReason.ERROR, String.valueOf(cause));
  }

  private static String truncate(String text) {
    String value = text == null ? "" : text;
    return value.length() <= MAX_DESCRIPTION ? value : value.substring(0, MAX_DESCRIPTION);
  }

  private static CompletionStage<Settlement> done(Settlement settlement) {
    return CompletableFuture.completedFuture(settlement);
  }
}
