package dev.turnstile.testkit.servicebus;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One thread that owns every proton-j object: accepts loopback connections, moves bytes between
 * sockets and transports, runs timers (lock expiry, delayed disposition echoes) and tasks that
 * tests submit.
 */
final class AmqpServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(AmqpServer.class);
  private static final long MAX_WAIT_MILLIS = 200;

  private record Timer(Instant due, Runnable action) {}

  final Broker broker;
  final Faults faults;
  private final Selector selector;
  private final ServerSocketChannel server;
  private final Thread thread;
  private final List<AmqpPeer> peers = new ArrayList<>();
  private final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
  private final PriorityQueue<Timer> timers =
      new PriorityQueue<>((a, b) -> a.due().compareTo(b.due()));
  private volatile boolean running = true;

  AmqpServer(Broker broker, Faults faults) {
    this.broker = broker;
    this.faults = faults;
    try {
      selector = Selector.open();
      server = ServerSocketChannel.open();
      server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
      server.configureBlocking(false);
      server.register(selector, SelectionKey.OP_ACCEPT);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    thread = new Thread(this::run, "service-bus-double");
    thread.setDaemon(true);
    thread.start();
  }

  int port() {
    return server.socket().getLocalPort();
  }

  /** Runs an action on the loop thread. */
  void execute(Runnable task) {
    tasks.add(task);
    selector.wakeup();
  }

  /** Runs an action on the loop thread for every open connection and waits for it. */
  void forEachPeer(Consumer<AmqpPeer> action) {
    CompletableFuture<Void> done = new CompletableFuture<>();
    execute(
        () -> {
          new ArrayList<>(peers).forEach(action);
          done.complete(null);
        });
    done.join();
  }

  /** Runs an action on the loop thread after a delay; only from the loop thread. */
  void schedule(Duration delay, Runnable action) {
    timers.add(new Timer(broker.now().plus(delay), action));
  }

  private void run() {
    while (running) {
      try {
        selector.select(waitMillis());
        handleSelected();
        runDue();
        for (AmqpPeer peer : new ArrayList<>(peers)) {
          peer.pump();
          if (!peer.flush()) {
            peers.remove(peer);
          }
        }
      } catch (IOException | RuntimeException e) {
        LOG.warn("service bus double loop error", e);
      }
    }
    peers.forEach(AmqpPeer::closeSocket);
  }

  private void handleSelected() throws IOException {
    Iterator<SelectionKey> keys = selector.selectedKeys().iterator();
    while (keys.hasNext()) {
      SelectionKey key = keys.next();
      keys.remove();
      if (!key.isValid()) {
        continue;
      }
      if (key.isAcceptable()) {
        SocketChannel channel = server.accept();
        if (channel != null) {
          channel.configureBlocking(false);
          channel.socket().setTcpNoDelay(true);
          AmqpPeer peer = new AmqpPeer(this, channel);
          channel.register(selector, SelectionKey.OP_READ, peer);
          peers.add(peer);
        }
      } else if (key.isReadable()) {
        ((AmqpPeer) key.attachment()).read();
      }
    }
  }

  private void runDue() {
    Runnable task;
    while ((task = tasks.poll()) != null) {
      task.run();
    }
    Instant now = broker.now();
    while (!timers.isEmpty() && !timers.peek().due().isAfter(now)) {
      timers.poll().action().run();
    }
    for (Broker.SessionGrant expired : broker.expireLocks()) {
      for (AmqpPeer peer : peers) {
        peer.sessionLockExpired(expired);
      }
    }
  }

  private long waitMillis() {
    Instant now = broker.now();
    Instant next = broker.nextExpiry();
    if (!timers.isEmpty()) {
      next = next == null || timers.peek().due().isBefore(next) ? timers.peek().due() : next;
    }
    long wait = MAX_WAIT_MILLIS;
    if (next != null) {
      wait = Math.min(wait, Math.max(1, Duration.between(now, next).toMillis() + 1));
    }
    for (AmqpPeer peer : peers) {
      long tick = peer.tick();
      if (tick > 0) {
        wait = Math.min(wait, Math.max(1, tick - System.currentTimeMillis()));
      }
    }
    return wait;
  }

  void register(SocketChannel channel, int ops) {
    SelectionKey key = channel.keyFor(selector);
    if (key != null && key.isValid()) {
      key.interestOps(ops);
    }
  }

  @Override
  public void close() {
    running = false;
    selector.wakeup();
    try {
      thread.join(5_000);
      server.close();
      selector.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
