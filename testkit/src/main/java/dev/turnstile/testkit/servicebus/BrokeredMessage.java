package dev.turnstile.testkit.servicebus;

import java.util.Map;

/**
 * A snapshot of a message held by the {@link ServiceBusDouble}, for assertions.
 *
 * @param sequenceNumber the entity's sequence number, from 1
 * @param messageId the sender's message-id, as a string, or null
 * @param sessionId the sender's session id (AMQP group-id), or null
 * @param deliveryCount failed delivery attempts so far (the AMQP header value the next receiver
 *     sees)
 * @param body the body bytes (AMQP data section), or the value's string form for other bodies
 * @param applicationProperties the application properties, including {@code DeadLetterReason} and
 *     {@code DeadLetterErrorDescription} on dead-lettered messages
 */
public record BrokeredMessage(
    long sequenceNumber,
    String messageId,
    String sessionId,
    int deliveryCount,
    byte[] body,
    Map<String, Object> applicationProperties) {

  public String deadLetterReason() {
    return (String) applicationProperties.get(ServiceBusDouble.DEAD_LETTER_REASON);
  }

  public String deadLetterErrorDescription() {
    return (String) applicationProperties.get(ServiceBusDouble.DEAD_LETTER_ERROR_DESCRIPTION);
  }

  public String bodyAsString() {
    return new String(body, java.nio.charset.StandardCharsets.UTF_8);
  }
}
