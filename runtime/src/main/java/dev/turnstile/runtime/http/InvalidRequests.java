package dev.turnstile.runtime.http;

import dev.turnstile.runtime.http.Problems.Kind;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.vertx.core.Handler;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerRequest;
import java.util.function.Consumer;

/**
 * The answer to a request Vert.x could not decode: a bad request line or header, or a line or
 * headers over Vert.x's limits (4096 and 8192 bytes). It gets the same problem+json as every other
 * error ({@code uri-too-long} 414, {@code header-fields-too-large} 431, else {@code
 * malformed-request} 400) with {@code Connection: close}, then the connection is closed: what
 * follows on it cannot be trusted to start a request. (Vert.x's own handler answers without a body
 * and without saying it closes.)
 */
public final class InvalidRequests {

  private InvalidRequests() {}

  /**
   * The server's {@code invalidRequestHandler}.
   *
   * @param counted told the kind of each answer, e.g. to count it
   */
  public static Handler<HttpServerRequest> handler(Consumer<Kind> counted) {
    return request -> answer(request, counted);
  }

  private static void answer(HttpServerRequest request, Consumer<Kind> counted) {
    Throwable cause = request.decoderResult().cause();
    Kind kind;
    String detail;
    if (cause instanceof TooLongHttpLineException) {
      kind = Kind.URI_TOO_LONG;
      detail = "the request line is longer than the server reads";
    } else if (cause instanceof TooLongHttpHeaderException) {
      kind = Kind.HEADER_FIELDS_TOO_LARGE;
      detail = "the header fields are larger than the server reads";
    } else {
      kind = Kind.MALFORMED_REQUEST;
      detail =
          "the request is not valid HTTP/1.1"
              + (cause == null || cause.getMessage() == null ? "" : ": " + cause.getMessage());
    }
    counted.accept(kind);
    request.response().putHeader(HttpHeaders.CONNECTION, HttpHeaders.CLOSE);
    Problems.send(request, kind, detail, null).onComplete(done -> request.connection().close());
  }
}
