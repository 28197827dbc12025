package dev.turnstile.topology;

import static dev.turnstile.topology.config.TopologyConfigModel.HTTP_HOST;
import static dev.turnstile.topology.config.TopologyConfigModel.QUERY_ADVERTISED_SERVER;
import static dev.turnstile.topology.config.TopologyConfigModel.QUERY_STANDBY_MAX_LAG_RECORDS;

import dev.turnstile.schemas.TopicCatalogue;
import dev.turnstile.topology.adapter.streams.BoundedMemoryRocksDbConfig;
import dev.turnstile.topology.adapter.streams.KafkaStreamsStateQueries;
import dev.turnstile.topology.adapter.streams.RejectingExceptionHandler;
import dev.turnstile.topology.adapter.streams.TurnstileTopology;
import dev.turnstile.topology.adapter.streams.UsableTimestampExtractor;
import dev.turnstile.topology.config.StreamsProperties;
import dev.turnstile.topology.config.TopologyConfig;
import io.micrometer.core.instrument.binder.kafka.KafkaStreamsMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.streams.CloseOptions;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler;
import org.apache.kafka.streams.state.HostInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The topology process: Kafka Streams running {@link TurnstileTopology} exactly once. */
public final class TopologyApplication implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(TopologyApplication.class);

  /**
   * Longest wait for Kafka Streams to close (commit, flush, leave the group); the pod's {@code
   * terminationGracePeriodSeconds} must exceed it.
   */
  public static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(30);

  private final KafkaStreams streams;
  private final PrometheusMeterRegistry registry;
  private final KafkaStreamsMetrics streamsMetrics;

  /**
   * How often new Kafka Streams metrics (those of tasks and stores, created once partitions are
   * assigned) are bound to the registry; Micrometer's default, 60 s, leaves a freshly started pod
   * without them for a minute.
   */
  static final Duration METRICS_REFRESH = Duration.ofSeconds(5);

  private final MetricsBinderThread metricsBinder = new MetricsBinderThread();

  /** Counts the client's transitions to {@code RUNNING}. */
  private final AtomicLong runningSince = new AtomicLong();

  /** The transition to {@code RUNNING} after which every metric was bound. */
  private volatile long metricsBoundSince = -1;

  private TopologyApplication(KafkaStreams streams, PrometheusMeterRegistry registry) {
    this.streams = streams;
    this.registry = registry;
    this.streamsMetrics =
        new KafkaStreamsMetrics(streams, List.of(), metricsBinder, METRICS_REFRESH);
    streamsMetrics.bindTo(registry);
  }

  /**
   * The registry behind {@code /metrics}. Every store's metrics carry the tag {@code
   * rocksdb_state_id}, whatever the store's kind (see {@link ExportedKafkaStreams}).
   */
  public static PrometheusMeterRegistry newRegistry() {
    return new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  }

  /**
   * Called with each new state: on {@code RUNNING}, binds the metrics the tasks and stores created
   * while partitions were assigned before {@link #ready()} says so.
   */
  private void stateChanged(KafkaStreams.State now) {
    if (now == KafkaStreams.State.RUNNING) {
      long transition = runningSince.incrementAndGet();
      metricsBinder.refreshNow(() -> metricsBoundSince = transition);
    }
  }

  /**
   * The topology {@code config} describes, as Kafka Streams runs it (sources, processors, stores,
   * sinks), for a harness that drives it without a broker ({@code TopologyTestDriver}).
   */
  public static Topology topology(TopologyConfig config) {
    return TurnstileTopology.build(config);
  }

  /**
   * The topics read by the topology {@code config} describes, under the deployment's names: what
   * its consumer group's lag sums over and what its Kafka user must be allowed to read.
   */
  public static Set<String> sourceTopics(TopologyConfig config) {
    return TurnstileTopology.sourceTopics(TurnstileTopology.build(config));
  }

  /**
   * {@link #sourceTopics(TopologyConfig)} under the default configuration: the catalogue's base
   * names, for a harness that runs the topology with its defaults.
   */
  public static Set<String> sourceTopics() {
    return sourceTopics(TopologyConfig.of(Map.of("kafka.bootstrap.servers", "unused:9092")));
  }

  /** Starts Kafka Streams and returns at once; see {@link #state()}. */
  public static TopologyApplication start(TopologyConfig config) {
    return start(config, newRegistry());
  }

  /**
   * As {@link #start(TopologyConfig)}, binding Kafka Streams' metrics to {@code registry} (made by
   * {@link #newRegistry()}), with {@code topology.query.advertised-server} as {@code
   * application.server} when set.
   */
  public static TopologyApplication start(TopologyConfig config, PrometheusMeterRegistry registry) {
    return start(config, registry, config.get(QUERY_ADVERTISED_SERVER).orElse(null));
  }

  /**
   * As {@link #start(TopologyConfig, PrometheusMeterRegistry)}, advertising {@code
   * applicationServer} ({@code host:port} of this instance's HTTP server, see {@link
   * #advertisedServer}) as Kafka Streams' {@code application.server}, so that every instance knows
   * where each key's state is queried; null advertises nothing.
   */
  public static TopologyApplication start(
      TopologyConfig config, PrometheusMeterRegistry registry, String applicationServer) {
    return start(config, registry, applicationServer, failure -> {});
  }

  /**
   * As {@link #start(TopologyConfig, PrometheusMeterRegistry, String)}, telling {@code onError} at
   * once when the client reaches {@code ERROR}: with what stopped its stream thread, or an {@link
   * IllegalStateException} when Kafka Streams gave no cause.
   *
   * @throws org.apache.kafka.streams.errors.StreamsException when Kafka Streams cannot be built or
   *     started (its state directory locked by another client, or not writable); nothing is left
   *     running then
   */
  public static TopologyApplication start(
      TopologyConfig config,
      PrometheusMeterRegistry registry,
      String applicationServer,
      Consumer<Throwable> onError) {
    Properties properties = streamsProperties(config);
    if (applicationServer != null) {
      properties.put(StreamsConfig.APPLICATION_SERVER_CONFIG, applicationServer);
    }
    KafkaStreams streams = new ExportedKafkaStreams(topology(config), properties);
    TopologyApplication app = new TopologyApplication(streams, registry);
    AtomicReference<Throwable> failure = new AtomicReference<>();
    // Record-level problems are answered inside the stages and by RejectingExceptionHandler
    // (rejected-events.v1). What reaches here is a broken environment (lost state directory,
    // fenced for good, a changelog write refused): stop this client so the pod restarts visibly
    // rather than replacing the thread and looping on the same record.
    streams.setUncaughtExceptionHandler(
        e -> {
          LOG.error("stream thread failed; shutting this client down", e);
          failure.compareAndSet(null, e);
          return StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
        });
    streams.setStateListener(
        (now, before) -> {
          LOG.info("Kafka Streams state {} -> {}", before, now);
          app.stateChanged(now);
          if (now == KafkaStreams.State.ERROR) {
            Throwable cause = failure.get();
            onError.accept(
                cause != null ? cause : new IllegalStateException("Kafka Streams went to ERROR"));
          }
        });
    try {
      streams.start();
    } catch (RuntimeException e) {
      app.close();
      throw e;
    }
    return app;
  }

  /** The classes of the Kafka Streams adapter that the topology plugs into Kafka Streams. */
  static final StreamsProperties.Plugins PLUGINS =
      new StreamsProperties.Plugins(
          BoundedMemoryRocksDbConfig.class,
          RejectingExceptionHandler.class,
          UsableTimestampExtractor.class);

  /**
   * The Kafka Streams configuration Turnstile runs with, as {@link StreamsProperties} computes, and
   * a {@code client.id} that carries the topology's {@link #shape}: {@code <client.id, else
   * application id>-shape-<shape>-<random UUID>}, so every consumer of the group says which shape
   * it runs ({@link #shapeOfClient}).
   */
  public static Properties streamsProperties(TopologyConfig config) {
    Properties p = StreamsProperties.of(config, PLUGINS);
    p.put(RejectingExceptionHandler.REJECTED_TOPIC, config.topic(TopicCatalogue.REJECTED_EVENTS));
    Object base = p.getOrDefault(StreamsConfig.CLIENT_ID_CONFIG, config.applicationId());
    p.put(
        StreamsConfig.CLIENT_ID_CONFIG,
        base + SHAPE_MARK + shape(config) + "-" + UUID.randomUUID());
    return p;
  }

  private static final String SHAPE_MARK = "-shape-";

  /** {@link TurnstileTopology#shape} of the topology {@code config} describes. */
  public static String shape(TopologyConfig config) {
    return TurnstileTopology.shape(TurnstileTopology.build(config));
  }

  /**
   * The shape a group member's client id carries (a stream thread's consumer's client id starts
   * with the Streams {@code client.id}); empty for a client of a release before shapes were marked,
   * or not a topology's.
   */
  public static Optional<String> shapeOfClient(String clientId) {
    int at = clientId == null ? -1 : clientId.lastIndexOf(SHAPE_MARK);
    if (at < 0 || clientId.length() < at + SHAPE_MARK.length() + 8) {
      return Optional.empty();
    }
    return Optional.of(clientId.substring(at + SHAPE_MARK.length(), at + SHAPE_MARK.length() + 8));
  }

  /**
   * The {@code application.server} of an instance whose HTTP server listens on {@code httpPort}:
   * {@code topology.query.advertised-server} when set; else {@code topology.http.host} when it
   * names one interface, or this host's address (on Kubernetes the pod IP) when it is a wildcard;
   * with {@code httpPort}.
   */
  public static String advertisedServer(TopologyConfig config, int httpPort) {
    if (config.get(QUERY_ADVERTISED_SERVER).isPresent()) {
      return config.get(QUERY_ADVERTISED_SERVER).get();
    }
    String host = config.get(HTTP_HOST);
    if (host == null || host.isBlank() || host.equals("0.0.0.0") || host.equals("::")) {
      try {
        host = InetAddress.getLocalHost().getHostAddress();
      } catch (UnknownHostException e) {
        host = InetAddress.getLoopbackAddress().getHostAddress();
      }
    }
    return (host.contains(":") ? "[" + host + "]" : host) + ":" + httpPort;
  }

  /**
   * The read-only queries over this client's state stores (IQv2), answering as {@code
   * applicationServer}.
   */
  public KafkaStreamsStateQueries queries(TopologyConfig config, String applicationServer) {
    return new KafkaStreamsStateQueries(
        () -> streams,
        applicationServer == null ? null : HostInfo.buildFromEndpoint(applicationServer),
        config.get(QUERY_STANDBY_MAX_LAG_RECORDS),
        config.merge().retention(),
        config.sessionPolicy().endedSessionRetention(),
        config.merge().maxPatches(),
        Clock.systemUTC());
  }

  public KafkaStreams.State state() {
    return streams.state();
  }

  /** Liveness: false once the client failed; true while it rebalances or restores state. */
  public boolean live() {
    KafkaStreams.State state = streams.state();
    return state != KafkaStreams.State.ERROR && state != KafkaStreams.State.PENDING_ERROR;
  }

  /**
   * Readiness: {@code RUNNING}, with the metrics of its tasks and stores bound, so that the first
   * scrape of a ready pod has every series (rejections, stores) a dashboard and alerts read.
   */
  public boolean ready() {
    return streams.state() == KafkaStreams.State.RUNNING && metricsBoundSince == runningSince.get();
  }

  /** Kafka Streams' metrics as {@code /metrics} exports them (see {@link ExportedKafkaStreams}). */
  public Map<MetricName, ? extends Metric> metrics() {
    return streams.metrics();
  }

  /** Kafka Streams metrics (and any others registered here) in Prometheus text format. */
  public String scrape() {
    return registry.scrape();
  }

  /**
   * Polls until the client is {@link #ready()} ({@code RUNNING}, metrics bound); false when the
   * deadline passes first.
   */
  public boolean awaitRunning(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      if (ready()) {
        return true;
      }
      if (streams.state() == KafkaStreams.State.ERROR
          || streams.state() == KafkaStreams.State.NOT_RUNNING) {
        return false;
      }
      Thread.sleep(50);
    }
    return false;
  }

  /** Duplicates dropped by every dedup stage since this client started (metric sum). */
  public long duplicatesDropped() {
    return duplicatesDropped(null);
  }

  /**
   * Duplicates dropped by {@code stage} (every stage when null) since this client started: the sum
   * of {@code duplicates-total} over threads.
   */
  public long duplicatesDropped(DedupStage stage) {
    double total = 0;
    for (var entry : streams.metrics().entrySet()) {
      MetricName name = entry.getKey();
      Metric metric = entry.getValue();
      if (name.name().equals("duplicates-total")
          && name.group().equals("stream-turnstile-dedup-metrics")
          && (stage == null || stage.tag().equals(name.tags().get("turnstile-dedup-id")))) {
        total += ((Number) metric.metricValue()).doubleValue();
      }
    }
    return Math.round(total);
  }

  @Override
  public void close() {
    // Leave the group at once: by default a closed member stays in it until its session times
    // out (45 s), and its partitions are processed by nobody meanwhile, on every rolling update.
    streams.close(
        CloseOptions.groupMembershipOperation(CloseOptions.GroupMembershipOperation.LEAVE_GROUP)
            .withTimeout(CLOSE_TIMEOUT));
    streamsMetrics.close();
    metricsBinder.shutdownNow();
    registry.close();
  }
}
