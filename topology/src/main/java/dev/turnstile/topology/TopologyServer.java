package dev.turnstile.topology;

import static dev.turnstile.topology.config.TopologyConfigModel.HTTP_HOST;
import static dev.turnstile.topology.config.TopologyConfigModel.HTTP_PORT;
import static dev.turnstile.topology.config.TopologyConfigModel.QUERY_FORWARD_TIMEOUT;

import dev.turnstile.topology.adapter.http.QueryRoutes;
import dev.turnstile.topology.adapter.http.TopologyHttpServer;
import dev.turnstile.topology.adapter.streams.KafkaStreamsStateQueries;
import dev.turnstile.topology.config.TopologyConfig;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A topology in this JVM with its HTTP server (probes, {@code /metrics}, the queries), started as
 * one piece: the entry point for a harness (the local stack, the demo, the benchmarks) that runs a
 * topology beside other things. {@link TopologyMain} runs the process proper, with its topic checks
 * and exit codes.
 */
public final class TopologyServer implements AutoCloseable {

  /**
   * The answer header of the queries naming the instance that read the state (or answered {@code
   * 503}), {@code host:port} as advertised.
   */
  public static final String SERVED_BY_HEADER = QueryRoutes.SERVED_BY;

  private final TopologyConfig config;
  private final TopologyApplication application;
  private final TopologyHttpServer http;

  private TopologyServer(
      TopologyConfig config, TopologyApplication application, TopologyHttpServer http) {
    this.config = config;
    this.application = application;
    this.http = http;
  }

  /**
   * Starts the HTTP server, then Kafka Streams advertising it (its port is the {@code
   * application.server} every instance routes queries to), and waits until the topology is ready.
   *
   * @throws IllegalStateException when it is not ready within {@code awaitReady}; nothing is left
   *     running then
   * @throws InterruptedException when interrupted while waiting; nothing is left running then
   */
  public static TopologyServer start(TopologyConfig config, Duration awaitReady)
      throws InterruptedException {
    AtomicReference<TopologyApplication> running = new AtomicReference<>();
    TopologyHttpServer http =
        TopologyHttpServer.start(
            config.get(HTTP_HOST),
            config.get(HTTP_PORT),
            new TopologyHttpServer.Probes(
                () -> running.get() == null || running.get().live(),
                () -> running.get() != null && running.get().ready(),
                () -> running.get() == null ? "STARTING" : running.get().state().name(),
                () -> running.get() == null ? "" : running.get().scrape()));
    TopologyApplication application;
    try {
      String advertised = TopologyApplication.advertisedServer(config, http.port());
      application =
          TopologyApplication.start(config, TopologyApplication.newRegistry(), advertised);
      running.set(application);
      KafkaStreamsStateQueries queries = application.queries(config, advertised);
      http.serveQueries(
          new QueryRoutes.UseCases(queries, queries),
          advertised,
          config.get(QUERY_FORWARD_TIMEOUT));
    } catch (RuntimeException e) {
      http.close();
      throw e;
    }
    TopologyServer server = new TopologyServer(config, application, http);
    boolean ready;
    try {
      ready = application.awaitRunning(awaitReady);
    } catch (InterruptedException e) {
      server.close();
      throw e;
    }
    if (!ready) {
      server.close();
      throw new IllegalStateException(
          "the topology was not ready within " + awaitReady + ": " + application.state());
    }
    return server;
  }

  /** The configuration it runs with. */
  public TopologyConfig config() {
    return config;
  }

  /** Its Kafka Streams client: state, metrics, duplicates dropped. */
  public TopologyApplication application() {
    return application;
  }

  /** The port its HTTP server listens on. */
  public int httpPort() {
    return http.port();
  }

  /** Closes Kafka Streams (within {@link TopologyApplication#CLOSE_TIMEOUT}), then the server. */
  @Override
  public void close() {
    application.close();
    http.close();
  }
}
