package dev.turnstile.faults;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A TCP proxy on a loopback port in front of one broker listener, which the harness can cut: while
 * cut, no byte passes in either direction and new connections are accepted but not forwarded, as
 * when a network drops every packet; the peers see silence, not a reset, until their own timeouts
 * fire. Healing lets the held bytes through again. A refused upstream connection (the broker is
 * down) closes the client's connection, as the broker's own closed port would.
 *
 * <p>Blocking sockets, two daemon threads per connection: the bridge opens a handful of
 * connections.
 */
final class TcpProxy implements AutoCloseable {

  private final String name;
  private final ServerSocket server;
  private final int targetPort;
  private final Object gate = new Object();
  private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
  private final AtomicLong connections = new AtomicLong();
  private volatile boolean cut;
  private volatile boolean closed;

  private TcpProxy(String name, ServerSocket server, int targetPort) {
    this.name = name;
    this.server = server;
    this.targetPort = targetPort;
    Thread acceptor = new Thread(this::acceptLoop, "proxy-" + name + "-accept");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  /** Listens on a free loopback port and forwards to {@code targetPort} on loopback. */
  static TcpProxy start(String name, int targetPort) {
    try {
      ServerSocket server = new ServerSocket();
      server.setReuseAddress(true);
      server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 128);
      return new TcpProxy(name, server, targetPort);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  int port() {
    return server.getLocalPort();
  }

  /** Connections accepted so far. */
  long connections() {
    return connections.get();
  }

  /** Cuts ({@code true}) or heals ({@code false}) every connection, present and future. */
  void cut(boolean cut) {
    synchronized (gate) {
      this.cut = cut;
      gate.notifyAll();
    }
  }

  private void acceptLoop() {
    while (!closed) {
      try {
        Socket client = server.accept();
        connections.incrementAndGet();
        sockets.add(client);
        Thread connector = new Thread(() -> connect(client), "proxy-" + name + "-connect");
        connector.setDaemon(true);
        connector.start();
      } catch (IOException e) {
        if (!closed) {
          Pause.millis(50);
        }
      }
    }
  }

  private void connect(Socket client) {
    Socket upstream = null;
    try {
      awaitOpen();
      upstream = new Socket(InetAddress.getLoopbackAddress(), targetPort);
      if (upstream.getLocalPort() == targetPort) {
        // TCP self-connect: with nothing listening on a loopback port in the ephemeral range,
        // the kernel may pick that same port as the source and connect the socket to itself
        throw new IOException("nothing listens on " + targetPort);
      }
      upstream.setTcpNoDelay(true);
      client.setTcpNoDelay(true);
      sockets.add(upstream);
      pump(client, upstream, "up");
      pump(upstream, client, "down");
    } catch (IOException | RuntimeException e) {
      closeQuietly(client);
      closeQuietly(upstream);
    }
  }

  private void pump(Socket from, Socket to, String direction) {
    Thread thread =
        new Thread(
            () -> {
              byte[] buffer = new byte[64 * 1024];
              try (InputStream in = from.getInputStream();
                  OutputStream out = to.getOutputStream()) {
                int read;
                while ((read = in.read(buffer)) >= 0) {
                  awaitOpen();
                  out.write(buffer, 0, read);
                  out.flush();
                }
              } catch (IOException | RuntimeException e) {
                // one side closed or reset: close the other
              } finally {
                closeQuietly(from);
                closeQuietly(to);
              }
            },
            "proxy-" + name + "-" + direction);
    thread.setDaemon(true);
    thread.start();
  }

  private void awaitOpen() {
    synchronized (gate) {
      while (cut && !closed) {
        try {
          gate.wait();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException("interrupted", e);
        }
      }
    }
  }

  private void closeQuietly(Socket socket) {
    if (socket == null) {
      return;
    }
    sockets.remove(socket);
    try {
      socket.close();
    } catch (IOException e) {
      // already closed
    }
  }

  @Override
  public void close() {
    closed = true;
    cut(false);
    try {
      server.close();
    } catch (IOException e) {
      // already closed
    }
    sockets.forEach(this::closeQuietly);
  }
}
