package dev.turnstile.bridge.port.in;

import java.time.OffsetDateTime;
import java.util.Map;
import java.util.concurrent.CompletionStage;

/**
 * Use case: relay one Service Bus message, received in peek-lock mode, to Kafka and say how the
 * receiver must settle it.
 *
 * <p>The stage completes (never fails) with {@link Complete} once Kafka acknowledged the write,
 * {@link Abandon} when a retry can succeed (Kafka saturated or unavailable: its {@link
 * AbandonReason} says the caller should also stop pulling until Kafka is back), or {@link
 * DeadLetter} when the message can never be written as it is.
 */
public interface RelayServiceBusMessageUseCase {

  CompletionStage<Settlement> relay(ReceivedMessage message);

  /**
   * A received message with what the bridge needs of it; no SDK types.
   *
   * @param entity the configured entity name ({@code bridge.servicebus.entity.<name>})
   * @param entityPath {@code queue} or {@code topic/subscriptions/sub}
   * @param messageId sender's message ID, or {@code null}
   * @param sequenceNumber the entity's sequence number
   * @param enqueuedTime when Service Bus accepted it
   * @param deliveryCount as the SDK reports it (0 on first delivery)
   * @param sessionId session ID or {@code null}
   * @param partitionKey partition key or {@code null}
   * @param correlationId correlation ID or {@code null}
   * @param subject subject (label) or {@code null}
   * @param contentType content type or {@code null}
   * @param applicationProperties application properties, values as the SDK decoded them
   * @param body the body bytes, unchanged
   */
  record ReceivedMessage(
      String entity,
      String entityPath,
      String messageId,
      long sequenceNumber,
      OffsetDateTime enqueuedTime,
      long deliveryCount,
      String sessionId,
      String partitionKey,
      String correlationId,
      String subject,
      String contentType,
      Map<String, Object> applicationProperties,
      byte[] body) {}

  /** How to settle the message. */
  sealed interface Settlement permits Complete, Abandon, DeadLetter {}

  /** Kafka acknowledged it at these coordinates: complete the message. */
  record Complete(String eventId, String topic, int partition, long offset) implements Settlement {}

  /**
   * Not written for a reason a retry can fix: abandon the message; when {@link
   * AbandonReason#pausesIntake()}, also stop pulling until Kafka is back, so the delivery count
   * does not run up to the dead-letter queue.
   */
  record Abandon(AbandonReason reason, String detail) implements Settlement {}

  /**
   * Why a message is abandoned: a closed set, so the receiver decides whether to pause by a
   * property of the reason, never by matching its text.
   */
  enum AbandonReason {
    /** Kafka's producer buffer is full: pause. */
    SATURATED("saturated", true),
    /** Kafka did not take the write (broker down, timeout): pause. */
    UNAVAILABLE("unavailable", true),
    /** No Kafka acknowledgement within the settle timeout: pause. */
    SETTLE_TIMEOUT("settle-timeout", true),
    /**
     * Held through a pause for as long as its lock could be renewed, or delivered while closing;
     * not written.
     */
    PAUSED("paused", false),
    /** The callback's thread was interrupted (the bridge is stopping). */
    INTERRUPTED("interrupted", false),
    /** An unexpected failure; a redelivery may succeed. */
    ERROR("error", false);

    private final String slug;
    private final boolean pausesIntake;

    AbandonReason(String slug, boolean pausesIntake) {
      this.slug = slug;
      this.pausesIntake = pausesIntake;
    }

    /** The kebab-case {@code reason} tag of the abandoned-message metric. */
    public String slug() {
      return slug;
    }

    /** Whether Kafka cannot take writes now, so that every receiver should stop pulling. */
    public boolean pausesIntake() {
      return pausesIntake;
    }
  }

  /**
   * Can never be written as it is: dead-letter it.
   *
   * @param reason the {@code DeadLetterReason}, one of {@link DeadLetterReasons}
   * @param description the {@code DeadLetterErrorDescription}, human-readable
   */
  record DeadLetter(String reason, String description) implements Settlement {}

  /** The {@code DeadLetterReason} values the bridge writes. */
  final class DeadLetterReasons {
    /** The configured key is missing and {@code key-required} is true. */
    public static final String MISSING_KEY = "MissingKey";

    /** The body does not satisfy the entity's JSON Schema. */
    public static final String SCHEMA_VIOLATION = "SchemaViolation";

    /**
     * The body (or a structured CloudEvent) had to be read as JSON and is not I-JSON: duplicate
     * keys, content after the value, invalid UTF-8, an unpaired surrogate, not JSON at all.
     */
    public static final String MALFORMED_JSON = "MalformedJson";

    /**
     * Well-formed JSON past a documented bound of {@code StrictJson} (depth, lengths, exponent).
     */
    public static final String JSON_LIMIT_EXCEEDED = "JsonLimitExceeded";

    /** A structured or AMQP-binary CloudEvent the CloudEvents 1.0 rules or Turnstile refuse. */
    public static final String INVALID_CLOUD_EVENT = "InvalidCloudEvent";

    /** A CloudEvents content type other than one event in JSON, e.g. a batch. */
    public static final String UNSUPPORTED_CLOUD_EVENTS_FORMAT = "UnsupportedCloudEventsFormat";

    /** Kafka refused the record for good, e.g. larger than it accepts. */
    public static final String KAFKA_REJECTED = "KafkaRejected";

    private DeadLetterReasons() {}
  }
}
