package dev.turnstile.testkit.servicebus;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import org.apache.qpid.proton.amqp.Symbol;
import org.apache.qpid.proton.amqp.UnsignedInteger;
import org.apache.qpid.proton.amqp.messaging.Accepted;
import org.apache.qpid.proton.amqp.messaging.Modified;
import org.apache.qpid.proton.amqp.messaging.Rejected;
import org.apache.qpid.proton.amqp.messaging.Source;
import org.apache.qpid.proton.amqp.transport.DeliveryState;
import org.apache.qpid.proton.amqp.transport.ErrorCondition;
import org.apache.qpid.proton.amqp.transport.SenderSettleMode;
import org.apache.qpid.proton.engine.Delivery;
import org.apache.qpid.proton.engine.Sender;

/**
 * A client's receiver link on a queue, subscription or dead-letter queue: delivers under peek-lock
 * as credit allows and applies the client's dispositions. On a session-enabled entity the attach is
 * answered only once a session is locked for it.
 */
final class OutgoingLink implements LinkRole {
  private static final Duration DEFAULT_SESSION_WAIT = Duration.ofSeconds(30);
  private static final Symbol DETACH_FORCED = Symbol.valueOf("amqp:link:detach-forced");

  private final AmqpServer server;
  private final Sender sender;
  private final String path;
  private final boolean sessionful;
  private final String requestedSession;
  private final Instant waitUntil;
  private String sessionId;
  private boolean open;
  private boolean closed;

  OutgoingLink(AmqpServer server, Sender sender, String path) {
    this.server = server;
    this.sender = sender;
    this.path = path;
    this.sessionful = server.broker.requiresSession(path);
    Source remote = (Source) sender.getRemoteSource();
    Map<?, ?> filter = remote.getFilter();
    this.requestedSession =
        filter == null || filter.get(Amqp.SESSION_FILTER) == null
            ? null
            : String.valueOf(filter.get(Amqp.SESSION_FILTER));
    this.waitUntil = server.broker.now().plus(sessionWait(sender.getRemoteProperties()));
    sender.setContext(this);
  }

  private static Duration sessionWait(Map<Symbol, Object> properties) {
    if (properties != null && properties.get(Amqp.TIMEOUT_PROPERTY) instanceof UnsignedInteger t) {
      return Duration.ofMillis(t.longValue());
    }
    return DEFAULT_SESSION_WAIT;
  }

  @Override
  public String address() {
    return path;
  }

  String sessionId() {
    return sessionId;
  }

  @Override
  public void pump() {
    if (closed) {
      return;
    }
    if (!open) {
      tryOpen();
      return;
    }
    while (sender.getCredit() > 0) {
      Broker.Delivered next = server.broker.lockNext(path, sessionId);
      if (next == null) {
        break;
      }
      Delivery delivery = sender.delivery(Amqp.dotNetGuidBytes(next.lockToken()));
      delivery.setContext(next.lockToken());
      sender.send(next.encoded(), 0, next.encoded().length);
      if (sender.getRemoteSenderSettleMode() == SenderSettleMode.SETTLED) {
        delivery.settle();
        server.broker.complete(path, next.lockToken());
      }
      sender.advance();
    }
    if (sender.getDrain() && sender.getCredit() > 0) {
      sender.drained();
    }
  }

  private void tryOpen() {
    Map<Symbol, Object> properties = new HashMap<>();
    if (sessionful) {
      Broker.SessionGrant grant = server.broker.acquireSession(path, requestedSession, this);
      if (grant == null) {
        if (!server.broker.now().isBefore(waitUntil)) {
          closed = true;
          LinkRole.refuse(sender, Amqp.OPERATION_TIMEOUT, "No session available for " + path);
        }
        return;
      }
      sessionId = grant.sessionId();
      properties.put(Amqp.LOCKED_UNTIL_UTC, Amqp.dotNetTicks(grant.lockedUntil()));
    }
    Source remote = (Source) sender.getRemoteSource();
    Source source = new Source();
    source.setAddress(remote.getAddress());
    Map<Symbol, Object> filter = new HashMap<>();
    if (remote.getFilter() != null) {
      remote.getFilter().forEach((k, v) -> filter.put((Symbol) k, v));
    }
    if (sessionful) {
      filter.put(Amqp.SESSION_FILTER, sessionId);
    }
    source.setFilter(filter);
    sender.setSource(source);
    sender.setTarget(sender.getRemoteTarget());
    sender.setSenderSettleMode(sender.getRemoteSenderSettleMode());
    sender.setReceiverSettleMode(sender.getRemoteReceiverSettleMode());
    sender.setMaxMessageSize(ServiceBusDouble.MAX_MESSAGE_SIZE);
    sender.setProperties(properties);
    sender.open();
    open = true;
  }

  @Override
  public void onDelivery(Delivery delivery) {
    DeliveryState state = delivery.getRemoteState();
    if (state == null || delivery.isSettled() || !(delivery.getContext() instanceof UUID token)) {
      return;
    }
    Faults faults = server.faults;
    if (state instanceof Accepted && faults.detachAtNextComplete.remove(path)) {
      // The complete is lost with its link: the message stays locked until its lock expires.
      faults.completesDetached.incrementAndGet();
      detach(DETACH_FORCED, "Detached by the test double at a complete.");
      return;
    }
    DeliveryState echo = apply(token, state) ? state : lockLost();
    if (faults.withholdDispositionEcho) {
      return;
    }
    Runnable settle =
        () -> {
          if (!delivery.isSettled()) {
            delivery.disposition(echo);
            delivery.settle();
          }
        };
    if (faults.dispositionEchoDelay.isZero()) {
      settle.run();
    } else {
      server.schedule(faults.dispositionEchoDelay, settle);
    }
  }

  private boolean apply(UUID token, DeliveryState state) {
    Broker broker = server.broker;
    if (state instanceof Accepted) {
      return broker.complete(path, token, server.faults.loseFirstCompleteOf);
    }
    if (state instanceof Rejected rejected) {
      ErrorCondition error = rejected.getError();
      Map<?, ?> info = error == null ? null : error.getInfo();
      String reason = info == null ? null : (String) info.get(ServiceBusDouble.DEAD_LETTER_REASON);
      String description =
          info == null ? null : (String) info.get(ServiceBusDouble.DEAD_LETTER_ERROR_DESCRIPTION);
      return broker.deadLetter(path, token, reason, description);
    }
    Map<?, ?> toModify = state instanceof Modified m ? m.getMessageAnnotations() : null;
    return broker.abandon(path, token, toModify);
  }

  private DeliveryState lockLost() {
    Rejected rejected = new Rejected();
    Symbol condition = sessionful ? Amqp.SESSION_LOCK_LOST : Amqp.MESSAGE_LOCK_LOST;
    rejected.setError(new ErrorCondition(condition, "The lock on the message is gone."));
    return rejected;
  }

  void detach(Symbol condition, String description) {
    if (!closed) {
      closed = true;
      if (open) {
        LinkRole.close(sender, condition, description);
      } else {
        LinkRole.refuse(sender, condition, description);
      }
      onClosed();
    }
  }

  @Override
  public void onClosed() {
    closed = true;
    if (sessionId != null) {
      server.broker.releaseSession(path, sessionId, this);
    }
  }
}
