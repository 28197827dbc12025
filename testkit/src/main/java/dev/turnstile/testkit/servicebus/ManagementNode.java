package dev.turnstile.testkit.servicebus;

import java.time.Instant;
import java.util.Date;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import org.apache.qpid.proton.amqp.Symbol;
import org.apache.qpid.proton.amqp.messaging.AmqpValue;
import org.apache.qpid.proton.amqp.messaging.ApplicationProperties;
import org.apache.qpid.proton.message.Message;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Answers requests on {@code $cbs} (every token is good) and on {@code <entity>/$management}: lock
 * renewal, session lock renewal, settlement by lock token, empty session state and peek.
 */
final class ManagementNode {
  private static final Logger LOG = LoggerFactory.getLogger(ManagementNode.class);
  static final String CBS = "$cbs";
  static final String MANAGEMENT_SUFFIX = "/$management";

  private final Broker broker;
  private final Faults faults;

  ManagementNode(Broker broker, Faults faults) {
    this.broker = broker;
    this.faults = faults;
  }

  static boolean isNode(String address) {
    return CBS.equals(address) || (address != null && address.endsWith(MANAGEMENT_SUFFIX));
  }

  Message handle(String node, Message request) {
    Object operation = request.getApplicationProperties().getValue().get("operation");
    LOG.debug("request {} on {}", operation, node);
    Message response;
    if (CBS.equals(node)) {
      response = status(200, null, "token accepted");
    } else {
      String entity = node.substring(0, node.length() - MANAGEMENT_SUFFIX.length());
      Map<?, ?> body =
          request.getBody() instanceof AmqpValue v && v.getValue() instanceof Map<?, ?> m
              ? m
              : Map.of();
      response = manage(String.valueOf(operation), entity, body);
    }
    response.setCorrelationId(request.getMessageId());
    return response;
  }

  private Message manage(String operation, String entity, Map<?, ?> body) {
    switch (operation) {
      case "com.microsoft:renew-lock":
        return renewLocks(entity, (UUID[]) body.get("lock-tokens"));
      case "com.microsoft:renew-session-lock":
        Instant until = broker.renewSessionLock(entity, (String) body.get("session-id"));
        if (until == null || faults.lockLostOnRenew) {
          return status(410, Amqp.SESSION_LOCK_LOST, "The session lock is gone.");
        }
        return withBody(status(200, null, "OK"), Map.of("expiration", Date.from(until)));
      case "com.microsoft:update-disposition":
        return updateDisposition(entity, body);
      case "com.microsoft:get-session-state":
      case "com.microsoft:set-session-state":
        return withBody(status(200, null, "OK"), new HashMap<>());
      case "com.microsoft:peek-message":
        return status(204, null, "No messages peeked: not emulated.");
      default:
        return status(501, Symbol.valueOf("amqp:not-implemented"), operation + " not emulated");
    }
  }

  private Message renewLocks(String entity, UUID[] tokens) {
    if (faults.lockLostOnRenew) {
      return status(410, Amqp.MESSAGE_LOCK_LOST, "The lock on the message is gone.");
    }
    Date[] expirations = new Date[tokens.length];
    for (int i = 0; i < tokens.length; i++) {
      Instant until = broker.renewLock(entity, tokens[i]);
      if (until == null) {
        return status(410, Amqp.MESSAGE_LOCK_LOST, "The lock on the message is gone.");
      }
      expirations[i] = Date.from(until);
    }
    return withBody(status(200, null, "OK"), Map.of("expirations", expirations));
  }

  private Message updateDisposition(String entity, Map<?, ?> body) {
    String status = String.valueOf(body.get("disposition-status"));
    for (UUID token : (UUID[]) body.get("lock-tokens")) {
      boolean held =
          switch (status) {
            case "completed" -> broker.complete(entity, token);
            case "suspended" ->
                broker.deadLetter(
                    entity,
                    token,
                    (String) body.get("deadletter-reason"),
                    (String) body.get("deadletter-description"));
            default -> broker.abandon(entity, token, (Map<?, ?>) body.get("properties-to-modify"));
          };
      if (!held) {
        return status(410, Amqp.MESSAGE_LOCK_LOST, "The lock on the message is gone.");
      }
    }
    return status(200, null, "OK");
  }

  private static Message status(int code, Symbol condition, String description) {
    Map<String, Object> properties = new HashMap<>();
    properties.put("statusCode", code);
    properties.put("statusDescription", description);
    if (condition != null) {
      properties.put("errorCondition", condition.toString());
    }
    Message message = Message.Factory.create();
    message.setApplicationProperties(new ApplicationProperties(properties));
    return message;
  }

  private static Message withBody(Message message, Map<String, Object> body) {
    message.setBody(new AmqpValue(body));
    return message;
  }
}
