package dev.turnstile.testkit.servicebus;

import org.apache.qpid.proton.amqp.Symbol;
import org.apache.qpid.proton.amqp.transport.ErrorCondition;
import org.apache.qpid.proton.engine.Delivery;
import org.apache.qpid.proton.engine.Link;

/** What the double does with one attached link; set as the proton link's context. */
interface LinkRole {

  /** The entity or node address this link is attached to. */
  String address();

  default void onDelivery(Delivery delivery) {}

  /** Sends what the link's credit allows. */
  default void pump() {}

  /** The peer detached the link or the connection went away. */
  default void onClosed() {}

  /** Answers an attach with a refusal: attach without a terminus, then detach with the error. */
  static void refuse(Link link, Symbol condition, String description) {
    link.setSource(null);
    link.setTarget(null);
    link.open();
    close(link, condition, description);
  }

  static void close(Link link, Symbol condition, String description) {
    link.setCondition(new ErrorCondition(condition, description));
    link.close();
  }
}
