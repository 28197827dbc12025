package dev.turnstile.local;

import com.azure.messaging.servicebus.ServiceBusClientBuilder;
import com.azure.messaging.servicebus.ServiceBusMessage;
import com.azure.messaging.servicebus.ServiceBusMessageBatch;
import com.azure.messaging.servicebus.ServiceBusSenderClient;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.turnstile.schemas.Json;
import java.util.List;

/**
 * The back office of the reference data: one billing message per charging session, sent with the
 * real Service Bus SDK sender. Body {@code {"sessionId","userId","kwhTotal","dollars"}}, {@code
 * messageId} {@code billing-<sessionId>}, application property {@code mergeKey} = the session id,
 * so the topology merges it with the station's closed session.
 */
final class BillingPublisher {

  static final String MERGE_KEY_PROPERTY = "mergeKey";

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
    ObjectNode body = Json.mapper().createObjectNode();
    body.put("sessionId", row.sessionId());
    body.put("userId", row.userId());
    body.put("kwhTotal", row.kwhTotal());
    body.put("dollars", row.dollars());
    ServiceBusMessage message = new ServiceBusMessage(body.toString());
    message.setMessageId("billing-" + row.sessionId());
    message.setContentType("application/json");
    message.setSubject("charging-session-billed");
    message.getApplicationProperties().put(MERGE_KEY_PROPERTY, row.sessionId());
    return message;
  }
}
