package dev.turnstile.topology.adapter.http;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * The topology process's probes and metrics over the JDK's own HTTP server: {@code GET
 * /health/live}, {@code GET /health/ready} (200 or 503, JSON body) and {@code GET /metrics}
 * (Prometheus text format).
 */
public final class HealthServer implements AutoCloseable {

  private final HttpServer server;

  private HealthServer(HttpServer server) {
    this.server = server;
  }

  /**
   * @param port 0 for any free port
   * @param live true while the process should be kept
   * @param ready true while it should receive traffic
   * @param state a word for the body, e.g. the Kafka Streams state
   * @param scrape the Prometheus text exposition
   */
  public static HealthServer start(
      String host,
      int port,
      BooleanSupplier live,
      BooleanSupplier ready,
      Supplier<String> state,
      Supplier<String> scrape) {
    try {
      HttpServer server = HttpServer.create(new InetSocketAddress(host, port), 0);
      server.createContext("/health/live", exchange -> probe(exchange, live, state));
      server.createContext("/health/ready", exchange -> probe(exchange, ready, state));
      server.createContext(
          "/metrics",
          exchange ->
              respond(exchange, 200, "text/plain; version=0.0.4; charset=utf-8", scrape.get()));
      server.setExecutor(Executors.newSingleThreadExecutor(r -> new Thread(r, "health-http")));
      server.start();
      return new HealthServer(server);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot listen on " + host + ":" + port, e);
    }
  }

  public int port() {
    return server.getAddress().getPort();
  }

  private static void probe(HttpExchange exchange, BooleanSupplier check, Supplier<String> state)
      throws IOException {
    boolean up = check.getAsBoolean();
    respond(
        exchange,
        up ? 200 : 503,
        "application/json",
        "{\"status\":\"" + (up ? "UP" : "DOWN") + "\",\"state\":\"" + state.get() + "\"}");
  }

  private static void respond(HttpExchange exchange, int status, String type, String body)
      throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", type);
    if (!exchange.getRequestMethod().equals("GET")) {
      exchange.sendResponseHeaders(405, -1);
      exchange.close();
      return;
    }
    exchange.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
