package dev.turnstile.bridge;

import dev.turnstile.bridge.adapter.http.HttpBridgeServer;
import dev.turnstile.bridge.adapter.kafka.KafkaEventPublisher;
import dev.turnstile.bridge.adapter.kafka.KafkaReadinessProbe;
import dev.turnstile.bridge.application.AcceptDeviceEventService;
import dev.turnstile.bridge.application.BridgeMetrics;
import dev.turnstile.bridge.config.BridgeConfig;
import dev.turnstile.schemas.TopicCatalogue;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Vertx;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The bridge's composition root: wires the Kafka publisher, the use case and the HTTP server. Used
 * by {@link BridgeMain} and, in-process, by the local stack.
 */
public final class BridgeApplication implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(BridgeApplication.class);

  private final BridgeConfig config;
  private final Vertx vertx;
  private final PrometheusMeterRegistry registry;
  private final KafkaEventPublisher publisher;
  private final KafkaReadinessProbe readiness;
  private final HttpBridgeServer http;

  private BridgeApplication(
      BridgeConfig config,
      Vertx vertx,
      PrometheusMeterRegistry registry,
      KafkaEventPublisher publisher,
      KafkaReadinessProbe readiness,
      HttpBridgeServer http) {
    this.config = config;
    this.vertx = vertx;
    this.registry = registry;
    this.publisher = publisher;
    this.readiness = readiness;
    this.http = http;
  }

  /**
   * Starts the bridge and returns once the HTTP server listens.
   *
   * @throws IllegalStateException if the HTTP server cannot bind
   */
  public static BridgeApplication start(BridgeConfig config) {
    LOG.info("starting the bridge with {}", config);
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    Clock clock = Clock.systemUTC();
    KafkaEventPublisher publisher =
        new KafkaEventPublisher(
            config.producerProperties(), config.ackTimeout(), config.maxInFlight(), clock);
    KafkaReadinessProbe readiness =
        new KafkaReadinessProbe(config.kafkaCommon(), config.readinessInterval()).start();
    BridgeMetrics metrics = new BridgeMetrics(registry);
    AcceptDeviceEventService service =
        new AcceptDeviceEventService(
            publisher,
            TopicCatalogue.DEVICE_EVENTS_RAW.name(config.topicPrefix()),
            clock,
            metrics,
            config.duplicateCacheSize(),
            config.duplicateCacheTtl());
    Vertx vertx = Vertx.vertx();
    try {
      HttpBridgeServer http =
          HttpBridgeServer.start(vertx, config, service, metrics, readiness, registry::scrape)
              .toCompletionStage()
              .toCompletableFuture()
              .get(30, TimeUnit.SECONDS);
      LOG.info("bridge listening on {}:{}", config.httpHost(), http.port());
      return new BridgeApplication(config, vertx, registry, publisher, readiness, http);
    } catch (InterruptedException | ExecutionException | TimeoutException e) {
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      vertx.close();
      readiness.close();
      publisher.close(Duration.ZERO);
      throw new IllegalStateException(
          "the HTTP server did not start on " + config.httpHost() + ":" + config.httpPort(), e);
    }
  }

  /** The port the HTTP server listens on. */
  public int httpPort() {
    return http.port();
  }

  /** The bridge's meters (also scraped at {@code /metrics}). */
  public MeterRegistry meterRegistry() {
    return registry;
  }

  /**
   * Stops accepting requests, lets those in progress finish (their writes drain while the producer
   * is still open), then closes the producer and the rest, within the shutdown timeout.
   */
  @Override
  public void close() {
    Duration timeout = config.shutdownTimeout();
    long deadline = System.nanoTime() + timeout.toNanos();
    try {
      http.shutdown(timeout)
          .toCompletionStage()
          .toCompletableFuture()
          .get(timeout.toMillis() + 1_000, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException e) {
      LOG.warn("HTTP server did not shut down cleanly", e);
    }
    publisher.close(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
    readiness.close();
    try {
      vertx.close().toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException e) {
      LOG.warn("Vert.x did not close cleanly", e);
    }
    registry.close();
    LOG.info("bridge stopped");
  }
}
