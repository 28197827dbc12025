package dev.turnstile.local;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * HTTP/1.1 over a plain socket, byte for byte: the corpus sends what no well-behaved client would
 * (bad request lines, folded headers, lying lengths), so no HTTP client library can send it.
 */
final class RawHttp {

  /**
   * What came back: a response, or nothing before the server closed the connection.
   *
   * @param status 0 when the connection closed without a response
   * @param headers field names lower-cased, last value wins
   */
  record Answer(int status, Map<String, String> headers, String body) {
    boolean closedWithoutAnswer() {
      return status == 0;
    }
  }

  private RawHttp() {}

  /** Sends the bytes, reads one final response (skipping 1xx), closes. */
  static Answer exchange(int port, byte[] request, Duration timeout) throws IOException {
    try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
      socket.setSoTimeout((int) timeout.toMillis());
      if (request.length > 0) {
        try {
          socket.getOutputStream().write(request);
          socket.getOutputStream().flush();
        } catch (SocketException closedEarly) {
          // The server may answer and close before reading it all (e.g. a 431): read the answer.
        }
      }
      Reader in = new Reader(socket.getInputStream());
      while (true) {
        String statusLine = in.line();
        if (statusLine == null) {
          return new Answer(0, Map.of(), "");
        }
        int status = Integer.parseInt(statusLine.split(" ")[1]);
        Map<String, String> headers = new TreeMap<>();
        for (String line = in.line(); line != null && !line.isEmpty(); line = in.line()) {
          int colon = line.indexOf(':');
          headers.put(
              line.substring(0, colon).trim().toLowerCase(Locale.ROOT),
              line.substring(colon + 1).trim());
        }
        if (status >= 100 && status < 200) {
          continue;
        }
        String length = headers.get("content-length");
        String body = length != null ? in.exactly(Integer.parseInt(length)) : in.untilClosed();
        return new Answer(status, headers, body);
      }
    } catch (SocketTimeoutException e) {
      throw new IOException("no answer within " + timeout, e);
    }
  }

  /** Line and byte reading over the socket's stream; a reset counts as the end. */
  private static final class Reader {
    private final InputStream in;

    Reader(InputStream in) {
      this.in = in;
    }

    private int read() throws IOException {
      try {
        return in.read();
      } catch (SocketException reset) {
        return -1;
      }
    }

    /** A line without its CRLF (or LF); null at the end of the stream before any byte. */
    String line() throws IOException {
      ByteArrayOutputStream line = new ByteArrayOutputStream();
      int b;
      while ((b = read()) >= 0 && b != '\n') {
        if (b != '\r') {
          line.write(b);
        }
      }
      if (b < 0 && line.size() == 0) {
        return null;
      }
      return line.toString(StandardCharsets.ISO_8859_1);
    }

    String exactly(int length) throws IOException {
      ByteArrayOutputStream body = new ByteArrayOutputStream();
      int b;
      while (body.size() < length && (b = read()) >= 0) {
        body.write(b);
      }
      return body.toString(StandardCharsets.UTF_8);
    }

    String untilClosed() throws IOException {
      ByteArrayOutputStream body = new ByteArrayOutputStream();
      int b;
      while ((b = read()) >= 0) {
        body.write(b);
      }
      return body.toString(StandardCharsets.UTF_8);
    }
  }
}
