package dev.turnstile.bridge.adapter.http;

import dev.turnstile.bridge.config.BridgeConfig.HttpConnectionLimits;
import dev.turnstile.bridge.metrics.BridgeMetrics;
import dev.turnstile.runtime.http.Problems;
import dev.turnstile.runtime.http.Problems.Kind;
import io.vertx.core.Context;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpServerRequest;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Bounds what a client can hold without sending a request (RFC 9110 §15.5.9 lets a server close an
 * idle connection, or answer 408 to a request not received in time):
 *
 * <ul>
 *   <li>at most {@code maxConnections} open at once; a connection past it is closed at once;
 *   <li>a new connection must complete its first request line and headers within {@code
 *       headerTimeout}, and every later request on a keep-alive connection within {@code
 *       idleTimeout} of the previous request's end (once its answer is sent), or it is closed:
 *       Vert.x has no request before the headers are read, so there is nothing to answer 408 to;
 *   <li>once the headers are read, the body must arrive whole within {@code bodyTimeout}, or the
 *       request gets 408 problem+json and the connection is closed;
 *   <li>no byte read or written for {@code idleTimeout} closes the connection (Vert.x's own idle
 *       timeout, set on the server options).
 * </ul>
 *
 * <p>Per-connection timers run on the connection's event loop; a connection's state goes with it.
 */
final class ConnectionGuard {

  private final Vertx vertx;
  private final HttpConnectionLimits limits;
  private final BridgeMetrics metrics;
  private final AtomicInteger open = new AtomicInteger();
  private final Map<HttpConnection, Watch> watches = new ConcurrentHashMap<>();

  ConnectionGuard(Vertx vertx, HttpConnectionLimits limits, BridgeMetrics metrics) {
    this.vertx = vertx;
    this.limits = limits;
    this.metrics = metrics;
    metrics.openConnections(open::get);
  }

  /** Connections open now, as counted by this guard. */
  int openConnections() {
    return open.get();
  }

  /** The server's connection handler. */
  void connected(HttpConnection connection) {
    if (open.incrementAndGet() > limits.maxConnections()) {
      open.decrementAndGet();
      metrics.rejected("connection-limit");
      connection.close();
      return;
    }
    Watch watch = new Watch(connection, vertx.getOrCreateContext());
    watches.put(connection, watch);
    connection.closeHandler(
        closed -> {
          open.decrementAndGet();
          watches.remove(connection);
          watch.close();
        });
    watch.awaitHeaders(limits.headerTimeout().toMillis());
  }

  /** Wraps the server's request handler with the body deadline. */
  Handler<HttpServerRequest> guard(Handler<HttpServerRequest> requests) {
    return request -> {
      Watch watch = watches.get(request.connection());
      if (watch != null) {
        watch.requestStarted(request);
      }
      requests.handle(request);
    };
  }

  /**
   * One connection's deadlines: the headers of the next request, and the body of the current one.
   *
   * <p>Why the timers are lazy: arming and cancelling a timer for each deadline of each request
   * cost four timer operations per request on the event loop (8% of its time in the bridge profile
   * of issue 22). Now a request only moves the deadline; the header timer, once armed, fires when
   * the first deadline it was armed for is due and then re-arms itself for what remains of the
   * current one, so no deadline is kept later than before. The body timer is armed only when the
   * body did not come in the same read as the headers, which for a device's small request it does.
   */
  private final class Watch {
    private final HttpConnection connection;
    private final Context context;
    private HttpServerRequest current;
    private long headerTimer = -1;
    private long bodyTimer = -1;

    /** Between the end of a request's body and the next request's headers. */
    private boolean waiting;

    /**
     * When the current wait for headers began ({@link System#nanoTime()}), and how long it lasts.
     */
    private long waitingSince;

    private long waitMillis;
    private boolean closed;

    Watch(HttpConnection connection, Context context) {
      this.connection = connection;
      this.context = context;
    }

    void awaitHeaders(long millis) {
      if (closed) {
        return;
      }
      waiting = true;
      waitingSince = System.nanoTime();
      waitMillis = millis;
      if (headerTimer < 0) {
        headerTimer = vertx.setTimer(millis, id -> headersDue());
      }
    }

    void requestStarted(HttpServerRequest request) {
      waiting = false;
      current = request;
      context.runOnContext(
          read -> {
            if (current == request && !request.isEnded() && !closed) {
              bodyTimer =
                  vertx.setTimer(
                      limits.bodyTimeout().toMillis(),
                      id -> {
                        bodyTimer = -1;
                        bodyLate(request);
                      });
            }
          });
      request
          .end()
          .onComplete(
              read -> {
                cancelBody();
                if (read.succeeded() && current == request) {
                  awaitHeaders(limits.idleTimeout().toMillis());
                }
              });
    }

    private void headersDue() {
      headerTimer = -1;
      if (closed || !waiting) {
        // A request's body is on its way: its own timer watches it, and its end starts a new wait.
        return;
      }
      long left = waitMillis - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - waitingSince);
      if (left > 0) {
        // A later request ended since this timer was armed: its wait has this much left.
        headerTimer = vertx.setTimer(left, id -> headersDue());
        return;
      }
      if (current != null && !current.response().ended()) {
        // The answer to the last request is still being worked out (Kafka's ack): not idle.
        awaitHeaders(limits.idleTimeout().toMillis());
        return;
      }
      metrics.rejected("header-timeout");
      connection.close();
    }

    private void bodyLate(HttpServerRequest request) {
      if (request.isEnded() || request.response().ended() || request.response().closed()) {
        return;
      }
      metrics.rejected(Kind.REQUEST_TIMEOUT.slug);
      request.response().putHeader("Connection", "close");
      Problems.send(
              request,
              Kind.REQUEST_TIMEOUT,
              "the body did not arrive within " + limits.bodyTimeout().toMillis() + " ms",
              null)
          .onComplete(sent -> connection.close());
    }

    void close() {
      closed = true;
      if (headerTimer >= 0) {
        vertx.cancelTimer(headerTimer);
        headerTimer = -1;
      }
      cancelBody();
    }

    private void cancelBody() {
      if (bodyTimer >= 0) {
        vertx.cancelTimer(bodyTimer);
        bodyTimer = -1;
      }
    }
  }
}
