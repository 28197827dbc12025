package dev.turnstile.testkit.http;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * One HTTP/1.1 connection over a plain loopback socket, written byte for byte and read response by
 * response: for what no HTTP client sends (a declared body left out, requests pipelined behind an
 * unread body, both {@code Transfer-Encoding} and {@code Content-Length}), and to tell how the
 * server left the connection: answered, closed, or held open with nothing said.
 */
public final class RawHttpConnection implements AutoCloseable {

  /**
   * A final response (1xx interim responses are counted in {@link Exchange#interim()}, not here).
   *
   * @param headers field names lower-cased, every value in order
   */
  public record Response(int status, Map<String, List<String>> headers, String body) {

    /** The field's last value, or {@code null}. */
    public String header(String name) {
      List<String> values = headers.get(name.toLowerCase(Locale.ROOT));
      return values == null ? null : values.get(values.size() - 1);
    }

    /** Whether the server said it closes the connection after this response (RFC 9112 §9.6). */
    public boolean announcesClose() {
      List<String> values = headers.getOrDefault("connection", List.of());
      return values.stream()
          .flatMap(v -> List.of(v.split(",")).stream())
          .anyMatch(token -> token.trim().equalsIgnoreCase("close"));
    }
  }

  /** How a read ended. */
  public enum End {
    /** As many final responses as asked for were read; the connection may still be open. */
    ANSWERED,
    /** The server closed the connection (FIN or reset) first. */
    CLOSED,
    /** The deadline passed with the connection open and fewer responses than asked for. */
    HELD
  }

  /**
   * What one read gave.
   *
   * @param interim 1xx responses seen, e.g. {@code 100 Continue}
   * @param elapsed from the start of the read to its end
   */
  public record Exchange(List<Response> responses, int interim, End end, Duration elapsed) {}

  private final Socket socket;
  private final InputStream in;
  private boolean closed;

  private RawHttpConnection(Socket socket) throws IOException {
    this.socket = socket;
    this.in = new BufferedInputStream(socket.getInputStream());
  }

  /** Connects to {@code port} on the loopback interface. */
  public static RawHttpConnection open(int port) throws IOException {
    Socket socket = new Socket(InetAddress.getLoopbackAddress(), port);
    socket.setTcpNoDelay(true);
    return new RawHttpConnection(socket);
  }

  /**
   * Writes the bytes as they are.
   *
   * @return false when the server had closed or reset the connection (nothing more can be sent)
   */
  public boolean send(byte[] bytes) {
    try {
      socket.getOutputStream().write(bytes);
      socket.getOutputStream().flush();
      return true;
    } catch (IOException closedByServer) {
      return false;
    }
  }

  /** Writes {@code text} in ISO-8859-1, the octets of HTTP/1.1's header section. */
  public boolean send(String text) {
    return send(text.getBytes(StandardCharsets.ISO_8859_1));
  }

  /**
   * Reads until {@code count} final responses have come, the server closes the connection, or
   * {@code deadline} passes, whichever is first.
   */
  public Exchange read(int count, Duration deadline) throws IOException {
    long start = System.nanoTime();
    long end = start + deadline.toNanos();
    List<Response> responses = new ArrayList<>();
    int interim = 0;
    End how = End.ANSWERED;
    try {
      while (responses.size() < count) {
        Response response = readResponse(end);
        if (response == null) {
          how = End.CLOSED;
          break;
        }
        if (response.status() < 200) {
          interim++;
        } else {
          responses.add(response);
        }
      }
    } catch (SocketTimeoutException deadlinePassed) {
      how = End.HELD;
    }
    return new Exchange(
        List.copyOf(responses), interim, how, Duration.ofNanos(System.nanoTime() - start));
  }

  /**
   * Waits until the server closes the connection or {@code deadline} passes; what arrives meanwhile
   * is read and dropped.
   *
   * @return whether it closed in time
   */
  public boolean awaitClose(Duration deadline) throws IOException {
    long end = System.nanoTime() + deadline.toNanos();
    try {
      while (read(end) >= 0) {
        // dropped
      }
      return true;
    } catch (SocketTimeoutException stillOpen) {
      return false;
    }
  }

  /** One response; {@code null} when the connection closed before its first byte. */
  private Response readResponse(long end) throws IOException {
    String statusLine = line(end);
    if (statusLine == null) {
      return null;
    }
    String[] parts = statusLine.split(" ", 3);
    if (parts.length < 2 || !parts[0].startsWith("HTTP/")) {
      throw new IOException("not an HTTP status line: " + statusLine);
    }
    int status = Integer.parseInt(parts[1]);
    Map<String, List<String>> headers = new TreeMap<>();
    for (String line = line(end); line != null && !line.isEmpty(); line = line(end)) {
      int colon = line.indexOf(':');
      headers
          .computeIfAbsent(
              line.substring(0, colon).trim().toLowerCase(Locale.ROOT), k -> new ArrayList<>())
          .add(line.substring(colon + 1).trim());
    }
    if (status < 200) {
      return new Response(status, headers, "");
    }
    List<String> length = headers.get("content-length");
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    int b;
    if (length != null) {
      int size = Integer.parseInt(length.get(0));
      while (body.size() < size && (b = read(end)) >= 0) {
        body.write(b);
      }
    } else {
      while ((b = read(end)) >= 0) {
        body.write(b);
      }
    }
    return new Response(status, headers, body.toString(StandardCharsets.UTF_8));
  }

  /** A line without its CRLF; {@code null} at the end of the stream before any byte. */
  private String line(long end) throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    int b;
    while ((b = read(end)) >= 0 && b != '\n') {
      if (b != '\r') {
        line.write(b);
      }
    }
    return b < 0 && line.size() == 0 ? null : line.toString(StandardCharsets.ISO_8859_1);
  }

  /** One byte, -1 once closed (a reset counts as closed); a timeout at {@code end}. */
  private int read(long end) throws IOException {
    if (closed) {
      return -1;
    }
    long left = end - System.nanoTime();
    if (left <= 0) {
      throw new SocketTimeoutException("deadline passed");
    }
    socket.setSoTimeout((int) Math.max(1, left / 1_000_000));
    try {
      int b = in.read();
      closed = b < 0;
      return b;
    } catch (SocketTimeoutException e) {
      throw e;
    } catch (SocketException reset) {
      closed = true;
      return -1;
    }
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
