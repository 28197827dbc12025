package dev.turnstile.schemas;

/**
 * Kafka headers of {@code servicebus-messages.raw.v1}: what the Service Bus adapter writes and the
 * topology reads. CloudEvents 1.0, Kafka binary content mode; every value is UTF-8 text.
 *
 * <p>CloudEvents attributes ({@link CloudEventHeaders}): {@code ce_specversion} {@code 1.0}; {@code
 * ce_id} the message's {@code messageId}, or {@code <entity>/<sequenceNumber>} when the sender set
 * none; {@code ce_source} {@link #source(String, String)}; {@code ce_type} {@link #MESSAGE_TYPE};
 * {@code ce_time} the enqueued time (RFC 3339); {@code ce_subject} the message's subject, when set;
 * {@code content-type} the message's content type, when set.
 *
 * <p>Service Bus metadata travels as CloudEvents extension attributes (the constants below), and
 * each application property as a header {@link #property(String)}. Every record also carries the
 * CloudEvents Auth Context extension ({@link CloudEventHeaders#AUTH_TYPE}, {@link
 * CloudEventHeaders#AUTH_ID}, {@link CloudEventHeaders#AUTH_CLAIMS}): {@code system}, the entity it
 * came from and how the bridge reads it ({@link AuthContext#serviceBus}). A CloudEvent sent to
 * Service Bus may bring none of these extensions itself: it is dead-lettered.
 */
public final class ServiceBusHeaders {

  /** {@code ce_type} of every Service Bus message. */
  public static final String MESSAGE_TYPE = "dev.turnstile.servicebus.message.v1";

  /** The message's {@code SequenceNumber}, a decimal long, unique and increasing per entity. */
  public static final String SEQUENCE_NUMBER = "ce_sbsequencenumber";

  /** The message's enqueued time, RFC 3339. */
  public static final String ENQUEUED_TIME = "ce_sbenqueuedtime";

  /** The delivery count when the bridge received it, a decimal int (1 on first delivery). */
  public static final String DELIVERY_COUNT = "ce_sbdeliverycount";

  /** The message's {@code CorrelationId}, when set. */
  public static final String CORRELATION_ID = "ce_sbcorrelationid";

  /** The message's {@code SessionId}, when set (session-enabled entities). */
  public static final String SESSION_ID = "ce_sbsessionid";

  /** The entity path the message was received from, e.g. {@code billing} or {@code t/subs/s}. */
  public static final String ENTITY = "ce_sbentity";

  /**
   * Prefix of application-property headers: property {@code mergeKey} is {@code sb-prop-mergeKey}.
   */
  public static final String PROPERTY_PREFIX = "sb-prop-";

  /** The header carrying application property {@code name}, its value as a UTF-8 string. */
  public static String property(String name) {
    return PROPERTY_PREFIX + name;
  }

  /** {@code ce_source} of an entity's messages: {@code /servicebus/<namespace>/<entityPath>}. */
  public static String source(String namespace, String entityPath) {
    return "/servicebus/" + namespace + "/" + entityPath;
  }

  private ServiceBusHeaders() {}
}
