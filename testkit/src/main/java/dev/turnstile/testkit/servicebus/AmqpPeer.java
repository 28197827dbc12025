package dev.turnstile.testkit.servicebus;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import org.apache.qpid.proton.Proton;
import org.apache.qpid.proton.amqp.Symbol;
import org.apache.qpid.proton.amqp.transport.ErrorCondition;
import org.apache.qpid.proton.engine.Collector;
import org.apache.qpid.proton.engine.Connection;
import org.apache.qpid.proton.engine.Event;
import org.apache.qpid.proton.engine.Link;
import org.apache.qpid.proton.engine.Receiver;
import org.apache.qpid.proton.engine.Sasl;
import org.apache.qpid.proton.engine.Sender;
import org.apache.qpid.proton.engine.Transport;
import org.apache.qpid.proton.engine.impl.ProtocolTracer;
import org.apache.qpid.proton.engine.impl.TransportImpl;
import org.apache.qpid.proton.framing.TransportFrame;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** One client connection: SASL, the proton engine, and the links attached over it. */
final class AmqpPeer {
  private static final Logger LOG = LoggerFactory.getLogger(AmqpPeer.class);
  private static final Logger FRAMES =
      LoggerFactory.getLogger("dev.turnstile.testkit.servicebus.frames");

  private final AmqpServer server;
  private final SocketChannel channel;
  private final Transport transport = Proton.transport();
  private final Connection connection = Proton.connection();
  private final Collector collector = Proton.collector();
  private final Sasl sasl;
  private final ManagementNode node;
  private final List<LinkRole> links = new ArrayList<>();
  private boolean saslDone;
  private boolean socketClosed;

  AmqpPeer(AmqpServer server, SocketChannel channel) {
    this.server = server;
    this.channel = channel;
    this.node = new ManagementNode(server.broker, server.faults);
    if (FRAMES.isDebugEnabled()) {
      ((TransportImpl) transport).setProtocolTracer(new FrameLog());
    }
    sasl = transport.sasl();
    sasl.server();
    sasl.setMechanisms("ANONYMOUS", "PLAIN", "MSSBCBS", "EXTERNAL");
    connection.collect(collector);
    transport.bind(connection);
  }

  void read() {
    try {
      int capacity = transport.capacity();
      if (capacity > 0) {
        ByteBuffer tail = transport.tail();
        int read = channel.read(tail);
        if (read < 0) {
          transport.close_tail();
        } else {
          transport.process();
        }
      } else if (capacity < 0) {
        transport.close_tail();
      }
    } catch (IOException | RuntimeException e) {
      LOG.debug("read failed, closing", e);
      transport.close_tail();
    }
    handleEvents();
  }

  /** Writes what the engine has for the socket; false once the connection is gone. */
  boolean flush() {
    handleEvents();
    if (socketClosed) {
      return false;
    }
    try {
      while (transport.pending() > 0) {
        ByteBuffer head = transport.head();
        int written = channel.write(head);
        if (written <= 0) {
          break;
        }
        transport.pop(written);
      }
      if (transport.pending() < 0 && transport.capacity() < 0) {
        closeSocket();
        return false;
      }
      int ops =
          transport.pending() > 0
              ? SelectionKey.OP_READ | SelectionKey.OP_WRITE
              : SelectionKey.OP_READ;
      server.register(channel, ops);
      return true;
    } catch (IOException | RuntimeException e) {
      LOG.debug("write failed, closing", e);
      closeSocket();
      return false;
    }
  }

  long tick() {
    return socketClosed ? 0 : transport.tick(System.currentTimeMillis());
  }

  void pump() {
    for (LinkRole link : new ArrayList<>(links)) {
      link.pump();
    }
  }

  private void handleEvents() {
    if (!saslDone && sasl.getRemoteMechanisms().length > 0) {
      sasl.done(Sasl.SaslOutcome.PN_SASL_OK);
      saslDone = true;
    }
    Event event;
    while ((event = collector.peek()) != null) {
      try {
        handle(event);
      } catch (RuntimeException e) {
        LOG.warn("failed to handle {}", event.getType(), e);
      }
      collector.pop();
    }
  }

  private void handle(Event event) {
    switch (event.getType()) {
      case CONNECTION_REMOTE_OPEN -> {
        connection.setContainer("turnstile-service-bus-double");
        connection.open();
      }
      case CONNECTION_REMOTE_CLOSE -> {
        closeAllLinks();
        connection.close();
      }
      case SESSION_REMOTE_OPEN -> event.getSession().open();
      case SESSION_REMOTE_CLOSE -> event.getSession().close();
      case LINK_REMOTE_OPEN -> attach(event.getLink());
      case LINK_REMOTE_CLOSE, LINK_REMOTE_DETACH -> {
        if (event.getLink().getContext() instanceof LinkRole role) {
          role.onClosed();
          links.remove(role);
        }
        event.getLink().close();
      }
      case DELIVERY -> {
        if (event.getLink().getContext() instanceof LinkRole role) {
          role.onDelivery(event.getDelivery());
        }
      }
      case LINK_FLOW -> {
        if (event.getLink().getContext() instanceof LinkRole role) {
          role.pump();
        }
      }
      case TRANSPORT_CLOSED -> closeAllLinks();
      default -> {}
    }
  }

  private void attach(Link link) {
    if (link instanceof Receiver receiver) {
      String address = receiver.getRemoteTarget().getAddress();
      if (ManagementNode.isNode(address)) {
        links.add(new RequestLink(receiver, node, this::replyLinkFor));
      } else if (!server.broker.canSendTo(address)) {
        LinkRole.refuse(link, Amqp.NOT_FOUND, "No entity " + address);
      } else {
        IncomingLink incoming = new IncomingLink(server, receiver, address);
        incoming.open();
        links.add(incoming);
      }
    } else {
      Sender sender = (Sender) link;
      String address = sender.getRemoteSource().getAddress();
      if (ManagementNode.isNode(address)) {
        links.add(new ReplyLink(sender));
      } else if (!server.broker.canReceiveFrom(address)) {
        LinkRole.refuse(link, Amqp.NOT_FOUND, "No entity " + address);
      } else if (server.faults.serverBusy) {
        LinkRole.refuse(link, Amqp.SERVER_BUSY, "The double is set to be busy.");
      } else {
        OutgoingLink outgoing = new OutgoingLink(server, sender, address);
        links.add(outgoing);
        outgoing.pump();
      }
    }
  }

  private ReplyLink replyLinkFor(String replyTo) {
    for (LinkRole link : links) {
      if (link instanceof ReplyLink reply && replyTo != null && replyTo.equals(reply.replyTo())) {
        return reply;
      }
    }
    LOG.warn("no reply link for {}", replyTo);
    return null;
  }

  void sessionLockExpired(Broker.SessionGrant grant) {
    for (LinkRole link : new ArrayList<>(links)) {
      if (link == grant.owner() && link instanceof OutgoingLink outgoing) {
        outgoing.detach(Amqp.SESSION_LOCK_LOST, "The session lock expired.");
        links.remove(link);
      }
    }
  }

  /** Detaches every entity link on the path with the given error, as the service does. */
  void detachLinks(String path, Symbol condition, String description) {
    for (LinkRole link : new ArrayList<>(links)) {
      if (path.equals(link.address())) {
        if (link instanceof OutgoingLink outgoing) {
          outgoing.detach(condition, description);
          links.remove(link);
        } else if (link instanceof IncomingLink incoming) {
          incoming.detach(condition, description);
          links.remove(link);
        }
      }
    }
  }

  /** Closes the connection with an error, as the service does when it moves an entity. */
  void closeConnection(Symbol condition, String description) {
    closeAllLinks();
    connection.setCondition(new ErrorCondition(condition, description));
    connection.close();
  }

  private void closeAllLinks() {
    for (LinkRole link : links) {
      link.onClosed();
    }
    links.clear();
  }

  /** Drops the socket without any AMQP goodbye. */
  void closeSocket() {
    if (!socketClosed) {
      socketClosed = true;
      closeAllLinks();
      try {
        channel.close();
      } catch (IOException e) {
        LOG.debug("close failed", e);
      }
    }
  }

  private static final class FrameLog implements ProtocolTracer {
    @Override
    public void receivedFrame(TransportFrame frame) {
      FRAMES.debug("<- [{}] {}", frame.getChannel(), frame.getBody());
    }

    @Override
    public void sentFrame(TransportFrame frame) {
      FRAMES.debug("-> [{}] {}", frame.getChannel(), frame.getBody());
    }
  }
}
