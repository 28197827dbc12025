package dev.turnstile.runtime.http;

import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpVersion;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.PlatformHandler;
import java.time.Duration;
import java.util.Collections;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Whether a connection may serve another request after an answer (HTTP/1.1 keep-alive), for both
 * processes' servers. It may not, and the answer says {@code Connection: close}, when:
 *
 * <ul>
 *   <li>the answer was sent before the request's body was read in full: a refusal by the headers
 *       (401, 403, 404, 405, 413, 415, 429), or any answer to a request whose body the route does
 *       not read. After such an answer only the client knows whether the body follows: RFC 9110
 *       §10.1.1 lets a client that sent {@code Expect: 100-continue} leave it out, while the server
 *       goes on reading the declared body, so the client's next request would be read as that body
 *       (a request desync, the shape of request smuggling) and the connection held with nothing
 *       said. RFC 9110 §10.1.1 asks the server to say whether it closes or reads on;
 *   <li>the request came with {@code Transfer-Encoding}: Netty reads one that also has {@code
 *       Content-Length} by its chunks and drops the {@code Content-Length}, so the server can no
 *       longer tell, and RFC 9112 §6.1 requires a close after answering such a request.
 * </ul>
 *
 * <p>HTTP/1.x only: an HTTP/2 stream (the topology's h2c) is framed on its own, and its connection
 * is kept.
 *
 * <p>Then no further request on the connection is served (RFC 9112 §9.6), and the connection is
 * closed once the rest of the body has been read and dropped, after {@link #DRAIN_LIMIT_BYTES} of
 * it, or after {@link #LINGER}, whichever comes first: a lingering close (RFC 9112 §9.6), so that
 * body bytes left unread do not make the close a reset that could destroy the answer before the
 * client read it. A request without a body whose answer came first, or one whose body was read
 * before it was answered, keeps its connection.
 */
public final class ConnectionReuse implements PlatformHandler {

  /** Longest time the rest of a refused request's body is read before the connection closes. */
  public static final Duration LINGER = Duration.ofSeconds(2);

  /** Most bytes of a refused request's body read and dropped before the connection closes. */
  public static final long DRAIN_LIMIT_BYTES = 1L << 20;

  /** Connections whose last answer said {@code Connection: close}; gone with the connection. */
  private final Set<HttpConnection> closing =
      Collections.synchronizedSet(Collections.newSetFromMap(new WeakHashMap<>()));

  private ConnectionReuse() {}

  /**
   * Installs the rule on {@code router}, as its first route: mount it before any other route, so
   * that it sees every request the router serves, those it answers 404 and 405 included.
   *
   * @throws IllegalStateException when the router already has routes
   */
  public static void mount(Router router) {
    if (!router.getRoutes().isEmpty()) {
      throw new IllegalStateException("mount ConnectionReuse before any other route");
    }
    router.route().handler(new ConnectionReuse());
  }

  @Override
  public void handle(RoutingContext ctx) {
    HttpServerRequest request = ctx.request();
    if (request.version() == HttpVersion.HTTP_2) {
      // Each HTTP/2 stream is framed on its own (DATA frames, END_STREAM): a body left unread
      // cannot become the next request, and closing would end every stream of the connection.
      ctx.next();
      return;
    }
    HttpConnection connection = request.connection();
    if (closing.contains(connection)) {
      // Pipelined behind an answer that said close: never served (RFC 9112 §9.6).
      connection.close();
      return;
    }
    boolean chunked = request.headers().contains(HttpHeaders.TRANSFER_ENCODING);
    if (chunked || declaresBody(request)) {
      ctx.addHeadersEndHandler(
          headersEnd -> {
            if (chunked || !request.isEnded()) {
              closeAfterAnswer(request, connection);
            }
          });
    }
    ctx.next();
  }

  /** Whether the request's headers announce a body (RFC 9112 §6.3): a length above 0. */
  private static boolean declaresBody(HttpServerRequest request) {
    String length = request.getHeader(HttpHeaders.CONTENT_LENGTH);
    return length != null && !length.trim().equals("0");
  }

  /**
   * Runs as the answer's head is written, before the answer counts as complete: a graceful shutdown
   * begun now makes Vert.x drop the requests that arrive on the connection from now on and close it
   * once the request's body has ended, or at the shutdown's timeout.
   */
  private void closeAfterAnswer(HttpServerRequest request, HttpConnection connection) {
    request.response().putHeader(HttpHeaders.CONNECTION, HttpHeaders.CLOSE);
    closing.add(connection);
    if (!request.isEnded()) {
      long[] dropped = {0};
      request
          .handler(
              data -> {
                dropped[0] += data.length();
                if (dropped[0] > DRAIN_LIMIT_BYTES) {
                  connection.close();
                }
              })
          .resume();
    }
    connection.shutdown(LINGER.toMillis(), TimeUnit.MILLISECONDS);
  }
}
