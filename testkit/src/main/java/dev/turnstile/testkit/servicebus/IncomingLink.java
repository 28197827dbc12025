package dev.turnstile.testkit.servicebus;

import org.apache.qpid.proton.amqp.Symbol;
import org.apache.qpid.proton.amqp.messaging.Accepted;
import org.apache.qpid.proton.amqp.messaging.Rejected;
import org.apache.qpid.proton.amqp.transport.DeliveryState;
import org.apache.qpid.proton.amqp.transport.ErrorCondition;
import org.apache.qpid.proton.engine.Delivery;
import org.apache.qpid.proton.engine.EndpointState;
import org.apache.qpid.proton.engine.Receiver;

/** A client's sender link to a queue or topic: stores what arrives and accepts it. */
final class IncomingLink implements LinkRole {
  private static final int CREDIT = 100;
  private static final Symbol MESSAGE_SIZE_EXCEEDED =
      Symbol.valueOf("amqp:link:message-size-exceeded");

  private final AmqpServer server;
  private final Receiver receiver;
  private final String path;

  IncomingLink(AmqpServer server, Receiver receiver, String path) {
    this.server = server;
    this.receiver = receiver;
    this.path = path;
  }

  void open() {
    receiver.setTarget(receiver.getRemoteTarget());
    receiver.setSource(receiver.getRemoteSource());
    receiver.setSenderSettleMode(receiver.getRemoteSenderSettleMode());
    receiver.setReceiverSettleMode(receiver.getRemoteReceiverSettleMode());
    receiver.setMaxMessageSize(ServiceBusDouble.MAX_MESSAGE_SIZE);
    receiver.setContext(this);
    receiver.open();
    receiver.flow(CREDIT);
  }

  @Override
  public String address() {
    return path;
  }

  @Override
  public void onDelivery(Delivery delivery) {
    if (!delivery.isReadable() || delivery.isPartial()) {
      return;
    }
    byte[] transfer = Amqp.read(receiver, delivery.pending());
    int format = delivery.getMessageFormat();
    receiver.advance();
    if (receiver.getLocalState() == EndpointState.CLOSED
        || receiver.getSession().getConnection().getLocalState() == EndpointState.CLOSED) {
      // Sent before the client saw our detach or close: dropped, and the client times out.
      delivery.settle();
      return;
    }
    DeliveryState outcome = store(transfer, format);
    server.broker.countTransfer(path, outcome instanceof Accepted);
    if (!delivery.remotelySettled()) {
      delivery.disposition(outcome);
    }
    delivery.settle();
    if (receiver.getCredit() < CREDIT / 2) {
      receiver.flow(CREDIT - receiver.getCredit());
    }
  }

  /**
   * Stores every message of the transfer, or none: a transfer the double cannot hold is refused
   * with the error the service gives, never accepted and dropped.
   */
  private DeliveryState store(byte[] transfer, int format) {
    if (server.faults.serverBusy) {
      return rejected(Amqp.SERVER_BUSY, "The double is set to be busy.");
    }
    if (transfer.length > ServiceBusDouble.MAX_MESSAGE_SIZE.longValue()) {
      return rejected(
          MESSAGE_SIZE_EXCEEDED,
          "The message (size: %d bytes) is larger than is currently allowed (%d bytes)."
              .formatted(transfer.length, ServiceBusDouble.MAX_MESSAGE_SIZE.longValue()));
    }
    try {
      server.broker.enqueue(path, Amqp.messagesOf(transfer, format));
      return Accepted.getInstance();
    } catch (RuntimeException e) {
      return rejected(Symbol.valueOf("amqp:invalid-field"), e.getMessage());
    }
  }

  private static Rejected rejected(Symbol condition, String description) {
    Rejected rejected = new Rejected();
    rejected.setError(new ErrorCondition(condition, description));
    return rejected;
  }

  void detach(Symbol condition, String description) {
    LinkRole.close(receiver, condition, description);
  }
}
