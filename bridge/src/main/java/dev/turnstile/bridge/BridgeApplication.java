package dev.turnstile.bridge;

import static dev.turnstile.bridge.config.BridgeConfigModel.AUTH_CREDENTIALS_FILE;
import static dev.turnstile.bridge.config.BridgeConfigModel.AUTH_JWT_JWKS_URI;
import static dev.turnstile.bridge.config.BridgeConfigModel.DEVICE_MAX_CLOCK_SKEW_MS;
import static dev.turnstile.bridge.config.BridgeConfigModel.DEVICE_MIN_OCCURRED_AT;
import static dev.turnstile.bridge.config.BridgeConfigModel.DUPLICATE_CACHE_SIZE;
import static dev.turnstile.bridge.config.BridgeConfigModel.DUPLICATE_CACHE_TTL_MS;
import static dev.turnstile.bridge.config.BridgeConfigModel.HTTP_EVENT_LOOPS;
import static dev.turnstile.bridge.config.BridgeConfigModel.HTTP_HOST;
import static dev.turnstile.bridge.config.BridgeConfigModel.HTTP_PORT;
import static dev.turnstile.bridge.config.BridgeConfigModel.KAFKA_ACK_TIMEOUT_MS;
import static dev.turnstile.bridge.config.BridgeConfigModel.KAFKA_MAX_IN_FLIGHT;
import static dev.turnstile.bridge.config.BridgeConfigModel.KAFKA_READINESS_INTERVAL_MS;
import static dev.turnstile.bridge.config.BridgeConfigModel.SHUTDOWN_TIMEOUT_MS;
import static dev.turnstile.bridge.config.BridgeConfigModel.TOPIC_PREFIX;

import dev.turnstile.bridge.adapter.http.HttpBridgeServer;
import dev.turnstile.bridge.adapter.http.ServerTls;
import dev.turnstile.bridge.adapter.jsonschema.JsonSchemaBodyValidator;
import dev.turnstile.bridge.adapter.kafka.KafkaEventPublisher;
import dev.turnstile.bridge.adapter.kafka.KafkaReadinessProbe;
import dev.turnstile.bridge.adapter.servicebus.ServiceBusMessageSource;
import dev.turnstile.bridge.application.AcceptDeviceEventService;
import dev.turnstile.bridge.application.DeviceRateLimits;
import dev.turnstile.bridge.application.RelayServiceBusMessageService;
import dev.turnstile.bridge.application.auth.AuthorizeDeviceRequestService;
import dev.turnstile.bridge.application.auth.DeviceCredentialsFile;
import dev.turnstile.bridge.application.auth.JsonWebKeys;
import dev.turnstile.bridge.application.auth.JwtDeviceTokens;
import dev.turnstile.bridge.config.BridgeConfig;
import dev.turnstile.bridge.config.BridgeConfig.DeviceAuth;
import dev.turnstile.bridge.config.BridgeConfig.DeviceJwt;
import dev.turnstile.bridge.config.BridgeConfig.RateLimit;
import dev.turnstile.bridge.config.BridgeConfigModel;
import dev.turnstile.bridge.config.ServiceBusConfig;
import dev.turnstile.bridge.metrics.BridgeMetrics;
import dev.turnstile.bridge.port.out.BodyValidator;
import dev.turnstile.runtime.config.InvalidConfigurationException;
import dev.turnstile.runtime.topics.TopicSpec;
import dev.turnstile.runtime.topics.TopicWatch;
import dev.turnstile.schemas.OccurredAtWindow;
import dev.turnstile.schemas.TopicCatalogue;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The bridge's composition root: wires the Kafka publisher, the use cases, the HTTP server and,
 * when {@link BridgeConfigModel#SERVICEBUS_ENTITIES} is set, the Service Bus source. Used by {@link
 * BridgeMain} and, in-process, by the local stack.
 */
public final class BridgeApplication implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(BridgeApplication.class);

  private final BridgeConfig config;
  private final Vertx vertx;
  private final PrometheusMeterRegistry registry;
  private final KafkaEventPublisher publisher;
  private final KafkaReadinessProbe readiness;
  private final HttpBridgeServer http;
  private final AuthorizeDeviceRequestService access;
  private ServiceBusMessageSource serviceBus;

  private BridgeApplication(
      BridgeConfig config,
      Vertx vertx,
      PrometheusMeterRegistry registry,
      KafkaEventPublisher publisher,
      KafkaReadinessProbe readiness,
      HttpBridgeServer http,
      AuthorizeDeviceRequestService access) {
    this.config = config;
    this.access = access;
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
   * @throws InvalidConfigurationException naming the key, when the device credentials file or the
   *     HTTPS key material cannot be read or used
   */
  public static BridgeApplication start(BridgeConfig config) {
    LOG.info("starting the bridge with {}", config);
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    Clock clock = Clock.systemUTC();
    String deviceTopic = TopicCatalogue.DEVICE_EVENTS_RAW.name(config.get(TOPIC_PREFIX));
    KafkaReadinessProbe readiness =
        new KafkaReadinessProbe(
            config.kafkaCommon(),
            config.get(KAFKA_READINESS_INTERVAL_MS),
            new TopicWatch(topicsOf(config)));
    readiness.bindMetrics(registry);
    KafkaEventPublisher publisher =
        new KafkaEventPublisher(
            config.producerProperties(),
            config.get(KAFKA_ACK_TIMEOUT_MS),
            config.get(KAFKA_MAX_IN_FLIGHT),
            clock,
            readiness::whyNotWritable);
    publisher.bindMetrics(registry);
    BridgeMetrics metrics = new BridgeMetrics(registry);
    AcceptDeviceEventService service =
        new AcceptDeviceEventService(
            publisher,
            deviceTopic,
            clock,
            metrics,
            config.get(DUPLICATE_CACHE_SIZE),
            config.get(DUPLICATE_CACHE_TTL_MS),
            new OccurredAtWindow(
                config.get(DEVICE_MIN_OCCURRED_AT), config.get(DEVICE_MAX_CLOCK_SKEW_MS)));
    readiness.onRecreated(
        recreated -> {
          if (recreated.contains(deviceTopic)) {
            service.forgetAccepted();
          }
        });
    readiness.start();
    AuthorizeDeviceRequestService access;
    try {
      access = deviceAccess(config.deviceAuth(), config.rateLimit());
    } catch (RuntimeException e) {
      readiness.close();
      publisher.close(Duration.ZERO);
      throw e;
    }
    Vertx vertx =
        Vertx.vertx(new VertxOptions().setEventLoopPoolSize(config.get(HTTP_EVENT_LOOPS)));
    try {
      ServerTls tls = ServerTls.load(vertx, config.tls(), metrics);
      if (access.readsCredentialsFile()) {
        // A changed credentials file takes effect without a restart; read off the event loops.
        vertx.setPeriodic(
            config.deviceAuth().reloadInterval().toMillis(),
            timer -> vertx.executeBlocking(access::reloadCredentials, false));
      }
      HttpBridgeServer http =
          HttpBridgeServer.start(
                  vertx, config, access, service, metrics, readiness, registry::scrape, tls)
              .toCompletionStage()
              .toCompletableFuture()
              .get(30, TimeUnit.SECONDS);
      LOG.info(
          "bridge listening ({}) on {}:{} with {} event loops",
          tls == null ? "HTTP" : "HTTPS",
          config.get(HTTP_HOST),
          http.port(),
          config.get(HTTP_EVENT_LOOPS));
      BridgeApplication bridge =
          new BridgeApplication(config, vertx, registry, publisher, readiness, http, access);
      if (config.serviceBus() != null) {
        bridge.serviceBus = startServiceBus(config.serviceBus(), publisher, readiness, registry);
      }
      return bridge;
    } catch (RuntimeException e) {
      // Unusable HTTPS key material (InvalidConfigurationException) or a failed wiring step.
      access.close();
      vertx.close();
      readiness.close();
      publisher.close(Duration.ZERO);
      throw e;
    } catch (InterruptedException | ExecutionException | TimeoutException e) {
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      access.close();
      vertx.close();
      readiness.close();
      publisher.close(Duration.ZERO);
      throw new IllegalStateException(
          "the HTTP server did not start on " + config.get(HTTP_HOST) + ":" + config.get(HTTP_PORT),
          e);
    }
  }

  /**
   * Reads the credentials file when authentication is on; warns when authentication or the rate
   * limits are off.
   *
   * @throws InvalidConfigurationException naming {@link BridgeConfigModel#AUTH_CREDENTIALS_FILE}
   *     when the file cannot be read or holds an invalid line, or {@link
   *     BridgeConfigModel#AUTH_JWT_JWKS_URI} when the JWK set cannot be fetched
   */
  private static AuthorizeDeviceRequestService deviceAccess(DeviceAuth auth, RateLimit rate) {
    if (!rate.enabled()) {
      LOG.warn(
          "device rate limits are OFF ({}=0): one device can take all of the bridge",
          BridgeConfigModel.RATE_LIMIT_REQUESTS_PER_SECOND);
    }
    DeviceRateLimits limits =
        rate.enabled()
            ? new DeviceRateLimits(rate.requestsPerSecond(), rate.burst())
            : DeviceRateLimits.NONE;
    if (!auth.enabled()) {
      LOG.warn(
          "device authentication is OFF ({}=false): anyone who reaches the HTTP port can write"
              + " events for any device",
          BridgeConfigModel.AUTH_ENABLED);
      return new AuthorizeDeviceRequestService(null, limits);
    }
    DeviceCredentialsFile file = null;
    if (auth.credentialsFile() != null) {
      try {
        file = DeviceCredentialsFile.load(auth.credentialsFile());
      } catch (IllegalArgumentException e) {
        throw InvalidConfigurationException.of(AUTH_CREDENTIALS_FILE, e.getMessage());
      }
      LOG.info(
          "device authentication on: {} credentials from {}",
          file.current().size(),
          auth.credentialsFile());
    }
    JwtDeviceTokens jwts = null;
    DeviceJwt jwt = auth.jwt();
    if (jwt != null) {
      JsonWebKeys keys;
      try {
        keys = JsonWebKeys.fetch(jwt.jwksUri(), jwt.refreshInterval());
      } catch (IllegalArgumentException e) {
        throw InvalidConfigurationException.of(AUTH_JWT_JWKS_URI, e.getMessage());
      }
      try {
        jwts =
            new JwtDeviceTokens(
                keys,
                jwt.issuer(),
                jwt.audience(),
                jwt.devicesClaim(),
                jwt.algorithms(),
                jwt.clockSkew());
      } catch (RuntimeException e) {
        keys.close();
        throw e;
      }
      LOG.info(
          "device JWTs accepted: issuer {}, audience {}, devices in claim {}, {} ({})",
          jwt.issuer(),
          jwt.audience(),
          jwt.devicesClaim(),
          jwt.algorithms(),
          keys);
    }
    return new AuthorizeDeviceRequestService(file, jwts, limits);
  }

  /**
   * The topics the bridge writes: {@code device-events.raw.v1} and each Service Bus entity's topic,
   * held to the catalogue's layout where the catalogue declares them.
   */
  static List<TopicSpec> topicsOf(BridgeConfig config) {
    Map<String, TopicSpec> specs = new LinkedHashMap<>();
    for (var topic : TopicCatalogue.ALL) {
      if (topic.writtenBy().equals("bridge")) {
        specs.put(
            topic.name(config.get(TOPIC_PREFIX)),
            TopicSpec.of(topic, config.get(TOPIC_PREFIX), (short) 0));
      }
    }
    List<TopicSpec> used = new ArrayList<>();
    used.add(specs.get(TopicCatalogue.DEVICE_EVENTS_RAW.name(config.get(TOPIC_PREFIX))));
    if (config.serviceBus() != null) {
      for (ServiceBusConfig.Entity entity : config.serviceBus().entities()) {
        TopicSpec spec =
            specs.getOrDefault(entity.kafkaTopic(), TopicSpec.existing(entity.kafkaTopic()));
        if (!used.contains(spec)) {
          used.add(spec);
        }
      }
    }
    return used;
  }

  private static ServiceBusMessageSource startServiceBus(
      ServiceBusConfig config,
      KafkaEventPublisher publisher,
      KafkaReadinessProbe readiness,
      MeterRegistry registry) {
    Map<String, RelayServiceBusMessageService.Route> routes = new HashMap<>();
    for (ServiceBusConfig.Entity entity : config.entities()) {
      BodyValidator validator =
          entity.schema() == null
              ? BodyValidator.NONE
              : JsonSchemaBodyValidator.load(entity.schema());
      routes.put(
          entity.name(),
          new RelayServiceBusMessageService.Route(
              entity.kafkaTopic(), entity.key(), entity.keyRequired(), validator));
    }
    RelayServiceBusMessageService service =
        new RelayServiceBusMessageService(publisher, config.namespace(), routes);
    // Resume only once Kafka answers and this source's topics are writable again: resuming onto a
    // missing topic would abandon message after message toward the dead-letter queue.
    List<String> topics =
        config.entities().stream().map(ServiceBusConfig.Entity::kafkaTopic).distinct().toList();
    return ServiceBusMessageSource.start(
        config,
        service,
        since ->
            readiness.reachableSince(since)
                && topics.stream().allMatch(t -> readiness.whyNotWritable(t) == null),
        registry);
  }

  /** Whether the Service Bus source is paused because Kafka cannot take writes. */
  public boolean serviceBusPaused() {
    return serviceBus != null && serviceBus.paused();
  }

  /** The port the HTTP server listens on. */
  public int httpPort() {
    return http.port();
  }

  /**
   * The HTTP routes, {@code METHOD /path/{param}} (see {@link HttpBridgeServer#routes()}): what the
   * bridge's OpenAPI document must describe.
   */
  public java.util.List<String> httpRoutes() {
    return http.routes();
  }

  /** The bridge's meters (also scraped at {@code /metrics}). */
  public MeterRegistry meterRegistry() {
    return registry;
  }

  /**
   * Stops accepting requests and Service Bus messages, lets those in progress finish (their writes
   * drain while the producer is still open), then closes the producer and the rest, within the
   * shutdown timeout.
   */
  @Override
  public void close() {
    Duration timeout = config.get(SHUTDOWN_TIMEOUT_MS);
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
    if (serviceBus != null) {
      serviceBus.close(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
    }
    publisher.close(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
    readiness.close();
    access.close();
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
