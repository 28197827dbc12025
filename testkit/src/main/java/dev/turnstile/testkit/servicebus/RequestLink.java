package dev.turnstile.testkit.servicebus;

import java.util.function.Function;
import org.apache.qpid.proton.amqp.messaging.Accepted;
import org.apache.qpid.proton.engine.Delivery;
import org.apache.qpid.proton.engine.Receiver;
import org.apache.qpid.proton.message.Message;

/** The client's sender link to {@code $cbs} or a {@code $management} node: carries requests. */
final class RequestLink implements LinkRole {
  private static final int CREDIT = 50;

  private final Receiver receiver;
  private final ManagementNode node;
  private final Function<String, ReplyLink> replyLinks;

  RequestLink(Receiver receiver, ManagementNode node, Function<String, ReplyLink> replyLinks) {
    this.receiver = receiver;
    this.node = node;
    this.replyLinks = replyLinks;
    receiver.setTarget(receiver.getRemoteTarget());
    receiver.setSource(receiver.getRemoteSource());
    receiver.setSenderSettleMode(receiver.getRemoteSenderSettleMode());
    receiver.setReceiverSettleMode(receiver.getRemoteReceiverSettleMode());
    receiver.setContext(this);
    receiver.open();
    receiver.flow(CREDIT);
  }

  @Override
  public String address() {
    return receiver.getRemoteTarget().getAddress();
  }

  @Override
  public void onDelivery(Delivery delivery) {
    if (!delivery.isReadable() || delivery.isPartial()) {
      return;
    }
    Message request = Amqp.decode(Amqp.read(receiver, delivery.pending()));
    receiver.advance();
    if (!delivery.remotelySettled()) {
      delivery.disposition(Accepted.getInstance());
    }
    delivery.settle();
    if (receiver.getCredit() < CREDIT / 2) {
      receiver.flow(CREDIT - receiver.getCredit());
    }
    Message response = node.handle(address(), request);
    ReplyLink replyLink = replyLinks.apply(request.getReplyTo());
    if (replyLink != null) {
      replyLink.reply(Amqp.encode(response));
    }
  }
}
