package dev.turnstile.local;

import com.azure.core.amqp.AmqpRetryOptions;
import com.azure.messaging.servicebus.ServiceBusClientBuilder;
import com.azure.messaging.servicebus.ServiceBusMessage;
import com.azure.messaging.servicebus.ServiceBusMessageBatch;
import com.azure.messaging.servicebus.ServiceBusSenderClient;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.turnstile.schemas.Json;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.List;

/**
 * The back office of the reference data: one billing message per charging session, sent with the
 * real Service Bus SDK sender. Body {@code {"sessionId","userId","kwhTotal","dollars"}}, {@code
 * messageId} {@code billing-<sessionId>}, application property {@code mergeKey} = the session id,
 * so the topology merges it with the station's closed session.
 */
public final class BillingPublisher {

  /** The application property holding the merge key (the session id). */
  public static final String MERGE_KEY_PROPERTY = "mergeKey";

  /** The JSON Schema of a billing message's body, a classpath resource of {@code schemas}. */
  public static final String BODY_SCHEMA = "dev/turnstile/schemas/billing-message.v1.schema.json";

  private BillingPublisher() {}

  /** Sends one message per row in batches; returns how many were sent. */
  static long publish(String connectionString, String queue, List<ChargingSession> rows) {
    try (ServiceBusSenderClient sender =
        new ServiceBusClientBuilder()
            .connectionString(connectionString)
            .sender()
            .queueName(queue)
            .buildClient()) {
      long sent = 0;
      ServiceBusMessageBatch batch = sender.createMessageBatch();
      for (ChargingSession row : rows) {
        ServiceBusMessage message = message(row);
        if (!batch.tryAddMessage(message)) {
          sender.sendMessages(batch);
          sent += batch.getCount();
          batch = sender.createMessageBatch();
          if (!batch.tryAddMessage(message)) {
            throw new IllegalStateException("a billing message does not fit in a batch");
          }
        }
      }
      if (batch.getCount() > 0) {
        sender.sendMessages(batch);
        sent += batch.getCount();
      }
      return sent;
    }
  }

  static ServiceBusMessage message(ChargingSession row) {
    return message(row.sessionId(), row.userId(), row.kwhTotal(), row.dollars());
  }

  /**
   * A billing message as the back office sends it: body {@code billing-message.v1}, {@code
   * messageId} {@code billing-<sessionId>} (so a resend is deduplicated), application property
   * {@code mergeKey} = {@code sessionId}.
   */
  public static ServiceBusMessage message(
      String sessionId, String userId, BigDecimal kwhTotal, BigDecimal dollars) {
    ObjectNode body = Json.mapper().createObjectNode();
    body.put("sessionId", sessionId);
    body.put("userId", userId);
    body.put("kwhTotal", kwhTotal);
    body.put("dollars", dollars);
    ServiceBusMessage message = new ServiceBusMessage(body.toString());
    message.setMessageId("billing-" + sessionId);
    message.setContentType("application/json");
    message.setSubject("charging-session-billed");
    message.getApplicationProperties().put(MERGE_KEY_PROPERTY, sessionId);
    return message;
  }

  /**
   * Sends one message with the real SDK sender, giving up after about 30 s (3 tries of 10 s) when
   * the namespace does not answer.
   */
  static void send(String connectionString, String queue, ServiceBusMessage message) {
    try (ServiceBusSenderClient sender =
        new ServiceBusClientBuilder()
            .connectionString(connectionString)
            .retryOptions(
                new AmqpRetryOptions().setMaxRetries(2).setTryTimeout(Duration.ofSeconds(10)))
            .sender()
            .queueName(queue)
            .buildClient()) {
      sender.sendMessage(message);
    }
  }
}
