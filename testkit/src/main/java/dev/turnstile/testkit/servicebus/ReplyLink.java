package dev.turnstile.testkit.servicebus;

import java.util.ArrayDeque;
import java.util.Queue;
import org.apache.qpid.proton.engine.Delivery;
import org.apache.qpid.proton.engine.Sender;

/** The client's receiver link on {@code $cbs} or a {@code $management} node: carries responses. */
final class ReplyLink implements LinkRole {
  private final Sender sender;
  private final Queue<byte[]> responses = new ArrayDeque<>();
  private long nextTag;

  ReplyLink(Sender sender) {
    this.sender = sender;
    sender.setSource(sender.getRemoteSource());
    sender.setTarget(sender.getRemoteTarget());
    sender.setSenderSettleMode(sender.getRemoteSenderSettleMode());
    sender.setReceiverSettleMode(sender.getRemoteReceiverSettleMode());
    sender.setContext(this);
    sender.open();
  }

  @Override
  public String address() {
    return sender.getRemoteSource().getAddress();
  }

  /** The client's reply-to address: where a request's response goes. */
  String replyTo() {
    return sender.getRemoteTarget() == null ? null : sender.getRemoteTarget().getAddress();
  }

  void reply(byte[] response) {
    responses.add(response);
    pump();
  }

  @Override
  public void pump() {
    while (sender.getCredit() > 0 && !responses.isEmpty()) {
      byte[] response = responses.poll();
      Delivery delivery = sender.delivery(Long.toString(nextTag++).getBytes());
      sender.send(response, 0, response.length);
      delivery.settle();
      sender.advance();
    }
  }

  @Override
  public void onDelivery(Delivery delivery) {
    if (delivery.remotelySettled()) {
      delivery.settle();
    }
  }
}
