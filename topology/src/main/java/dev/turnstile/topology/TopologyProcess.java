package dev.turnstile.topology;

import static dev.turnstile.topology.config.TopologyConfigModel.BOOTSTRAP_SERVERS;
import static dev.turnstile.topology.config.TopologyConfigModel.HTTP_HOST;
import static dev.turnstile.topology.config.TopologyConfigModel.HTTP_PORT;
import static dev.turnstile.topology.config.TopologyConfigModel.QUERY_FORWARD_TIMEOUT;
import static dev.turnstile.topology.config.TopologyConfigModel.TOPICS_CHECK_INTERVAL;
import static dev.turnstile.topology.config.TopologyConfigModel.TOPICS_WAIT;
import static dev.turnstile.topology.config.TopologyConfigModel.TOPIC_PREFIX;

import dev.turnstile.runtime.cli.ExitCode;
import dev.turnstile.runtime.topics.TopicSpec;
import dev.turnstile.runtime.topics.TopicWatch;
import dev.turnstile.topology.adapter.http.QueryRoutes;
import dev.turnstile.topology.adapter.http.TopologyHttpServer;
import dev.turnstile.topology.adapter.streams.KafkaStreamsStateQueries;
import dev.turnstile.topology.config.TopologyConfig;
import dev.turnstile.topology.config.TopologyConfigModel;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The topology as a process under a supervisor (Kubernetes, systemd): probes first, then the
 * topics, then Kafka Streams, and an exit code that says what went wrong.
 *
 * <ul>
 *   <li>Before Kafka Streams starts, every catalogue topic must exist as declared (partition count,
 *       {@code cleanup.policy}). It waits up to {@code topology.topics.wait-ms} (topics created
 *       alongside, by Strimzi for instance), logging what is missing, then ends with {@link
 *       ExitCode#TOPICS}. Kafka Streams itself would go to {@code ERROR} with a {@code
 *       MissingSourceTopicException} and stay there, and its producers would make a broker that
 *       allows auto-creation create a missing output topic with the broker's defaults.
 *   <li>Before Kafka Streams starts, its consumer group (the application id) must have committed
 *       offsets on no topic this topology does not read: such offsets mean the group was run by a
 *       topology of another shape (a release whose post-merge read {@code merge-results.v1}), which
 *       Kafka Streams cannot run beside this one and whose state this one does not read
 *       (docs/design.md, "State and recovery"). It ends with {@link ExitCode#CONFIG}, naming the
 *       topics and {@code topology.application-id}: during a rolling update the new pods stop there
 *       and the old ones keep serving. A group that cannot be read is logged and not held against
 *       the start.
 *   <li>While running, the topics are checked every {@code topology.topics.check-interval-ms}; a
 *       partition-count change or a missing topic is logged and makes the process unready (keys
 *       would move between tasks and their state).
 *   <li>When Kafka Streams cannot be built or started (its state directory locked by another
 *       process or not writable), or reaches {@code ERROR} (a stream thread failed and the uncaught
 *       exception handler shut the client down), the process ends at once, with the {@link
 *       ExitReason} that names the cause and the key to change, instead of staying alive and
 *       useless.
 * </ul>
 *
 * <p>Liveness holds while waiting for topics, rebalancing and restoring, and fails once the process
 * is ending on its own; readiness needs {@code RUNNING} and the topics as declared.
 */
public final class TopologyProcess implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(TopologyProcess.class);

  private final TopologyConfig config;
  private final Admin admin;
  private final TopicWatch topics;
  private final TopologyHttpServer http;
  private final String advertisedServer;
  private final ScheduledExecutorService scheduler;
  private final CompletableFuture<Integer> exit = new CompletableFuture<>();
  private final PrometheusMeterRegistry registry = TopologyApplication.newRegistry();
  private volatile TopologyApplication app;
  private volatile String phase = "WAITING_FOR_TOPICS";
  private volatile ExitReason exitReason;
  private boolean closed;

  private TopologyProcess(TopologyConfig config) {
    this.config = config;
    StreamsConfig streams = new StreamsConfig(TopologyApplication.streamsProperties(config));
    this.admin = Admin.create(streams.getAdminConfigs(config.applicationId() + "-topics"));
    this.topics =
        new TopicWatch(
            TopicSpec.catalogue(config.get(TOPIC_PREFIX), config.generation(), (short) 0));
    try {
      this.http =
          TopologyHttpServer.start(
              config.get(HTTP_HOST),
              config.get(HTTP_PORT),
              new TopologyHttpServer.Probes(
                  this::live, this::ready, this::state, registry::scrape));
    } catch (RuntimeException e) {
      admin.close(Duration.ZERO);
      throw e;
    }
    this.advertisedServer = TopologyApplication.advertisedServer(config, http.port());
    Gauge.builder("turnstile.topics.as.declared", topics, t -> t.status().asDeclared() ? 1 : 0)
        .description("1 while every topic this process uses exists as the catalogue declares")
        .register(registry);
    Gauge.builder("turnstile.topology.ready", this, p -> p.ready() ? 1 : 0)
        .description("1 while Kafka Streams is RUNNING and every topic is as declared")
        .register(registry);
    this.scheduler =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread thread = new Thread(r, "topology-supervision");
              thread.setDaemon(true);
              return thread;
            });
  }

  /**
   * Starts the probes, waits for the topics, starts Kafka Streams; returns at once, see {@link
   * #awaitExit()}.
   *
   * @throws RuntimeException when the probes cannot listen or the Kafka clients cannot be built;
   *     {@link ExitReason#of} describes it
   */
  public static TopologyProcess start(TopologyConfig config) {
    TopologyProcess process = new TopologyProcess(config);
    process.scheduler.execute(process::waitForTopicsThenRun);
    return process;
  }

  /** The port of the HTTP server: probes, metrics and queries. */
  public int healthPort() {
    return http.port();
  }

  /** Every route of the HTTP server, as {@link TopologyHttpServer#routes()} lists them. */
  public List<String> httpRoutes() {
    return http.routes();
  }

  /** This instance's {@code application.server}: where other instances forward queries to. */
  public String advertisedServer() {
    return advertisedServer;
  }

  private void waitForTopicsThenRun() {
    long deadline = System.nanoTime() + config.get(TOPICS_WAIT).toNanos();
    try {
      TopicWatch.Status status = topics.check(admin, Duration.ofSeconds(10));
      while (!status.asDeclared() && System.nanoTime() < deadline) {
        Thread.sleep(1_000);
        status = topics.check(admin, Duration.ofSeconds(10));
      }
      if (!status.asDeclared()) {
        end(
            new ExitReason(
                ExitCode.TOPICS,
                "the topics are not as the catalogue declares after waiting "
                    + config.get(TOPICS_WAIT).toMillis()
                    + " ms ("
                    + TopologyConfigModel.TOPICS_WAIT
                    + "): "
                    + (status.reachable()
                        ? status.describe()
                        : "Kafka did not answer at "
                            + TopologyConfigModel.BOOTSTRAP_SERVERS
                            + " "
                            + config.get(BOOTSTRAP_SERVERS))
                    + "; create them (turnstile topics, or the KafkaTopic manifests) and start"
                    + " again"),
            null);
        return;
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return;
    }
    ExitReason otherShape = groupOfAnotherShape();
    if (otherShape != null) {
      end(otherShape, null);
      return;
    }
    synchronized (this) {
      if (exit.isDone()) {
        return;
      }
      phase = "STARTING";
      try {
        app = TopologyApplication.start(config, registry, advertisedServer, this::streamsFailed);
      } catch (RuntimeException e) {
        end(ExitReason.of(e, config), e);
        return;
      }
      KafkaStreamsStateQueries queries = app.queries(config, advertisedServer);
      http.serveQueries(
          new QueryRoutes.UseCases(queries, queries),
          advertisedServer,
          config.get(QUERY_FORWARD_TIMEOUT));
    }
    long interval = config.get(TOPICS_CHECK_INTERVAL).toMillis();
    scheduler.scheduleWithFixedDelay(this::supervise, interval, interval, TimeUnit.MILLISECONDS);
  }

  /**
   * Why this application id's group cannot run this topology: it committed offsets on topics this
   * topology does not read; {@code null} when it did not, or when the group could not be read.
   */
  private ExitReason groupOfAnotherShape() {
    Set<String> reads = TopologyApplication.sourceTopics(config);
    Set<String> others = new TreeSet<>();
    try {
      admin
          .listConsumerGroupOffsets(config.applicationId())
          .partitionsToOffsetAndMetadata()
          .get(10, TimeUnit.SECONDS)
          .keySet()
          .forEach(
              partition -> {
                if (!reads.contains(partition.topic())) {
                  others.add(partition.topic());
                }
              });
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    } catch (ExecutionException | TimeoutException e) {
      LOG.warn(
          "could not read the committed offsets of group {}: starting without checking that an"
              + " earlier topology of another shape did not run under it",
          config.applicationId(),
          e);
      return null;
    }
    if (others.isEmpty()) {
      return membersOfAnotherShape();
    }
    return groupRefused(
        "has committed offsets on "
            + others
            + ", which this topology does not read: a topology of another shape ran under it, and"
            + " this one cannot run beside it or read its state. Start this version under a new"
            + " application id (a new generation), or stop every instance, reset the application"
            + " id and delete those offsets (docs/design.md, \"State and recovery\")");
  }

  /**
   * Why this instance cannot join its group now: members of the group run a topology of another
   * shape ({@link TopologyApplication#shapeOfClient}; a release before shapes were marked has
   * none), whose tasks are numbered otherwise, so that two instances could write one store's
   * changelog partition. {@code null} when every member runs this shape, or the group could not be
   * read.
   */
  private ExitReason membersOfAnotherShape() {
    String mine = TopologyApplication.shape(config);
    Set<String> others = new TreeSet<>();
    try {
      admin
          .describeConsumerGroups(List.of(config.applicationId()))
          .all()
          .get(10, TimeUnit.SECONDS)
          .values()
          .forEach(
              group ->
                  group
                      .members()
                      .forEach(
                          member -> {
                            String theirs =
                                TopologyApplication.shapeOfClient(member.clientId()).orElse(null);
                            if (!mine.equals(theirs)) {
                              others.add(member.clientId() + " on " + member.host());
                            }
                          }));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    } catch (ExecutionException e) {
      if (e.getCause() instanceof GroupIdNotFoundException) {
        return null;
      }
      LOG.warn(
          "could not describe group {}: starting without checking that its members run this"
              + " topology's shape",
          config.applicationId(),
          e);
      return null;
    } catch (TimeoutException e) {
      LOG.warn("could not describe group {} in time: starting unchecked", config.applicationId());
      return null;
    }
    if (others.isEmpty()) {
      return null;
    }
    return groupRefused(
        "has members running a topology of another shape than this one ("
            + mine
            + "): "
            + others
            + ". Kafka Streams would number their tasks otherwise and two instances could write"
            + " the same state; this is an upgrade that cannot roll. Stop every instance of the"
            + " other version, then start this one (docs/design.md, \"State and recovery\")");
  }

  /** Why this instance may not join its group: {@code why}, after the group's name and key. */
  private ExitReason groupRefused(String why) {
    return new ExitReason(
        ExitCode.CONFIG,
        "group " + config.applicationId() + " (" + TopologyConfigModel.APPLICATION_ID + ") " + why);
  }

  /** Kafka Streams reached {@code ERROR}: a stream thread failed with {@code cause}. */
  private void streamsFailed(Throwable cause) {
    end(ExitReason.of(cause, config), null);
  }

  /**
   * Ends the process on its own (unless it is already ending): logs why at ERROR, fails liveness,
   * and releases {@link #awaitExit()} with the failure's exit code.
   */
  private void end(ExitReason why, Throwable cause) {
    synchronized (exit) {
      if (exit.isDone()) {
        return;
      }
      exitReason = why;
      if (cause != null) {
        LOG.error("{}; exiting with code {}", why.message(), why.exitCode(), cause);
      } else {
        LOG.error("{}; exiting with code {}", why.message(), why.exitCode());
      }
      exit.complete(why.exitCode());
    }
  }

  private void supervise() {
    KafkaStreams.State state = app.state();
    if (state == KafkaStreams.State.ERROR) {
      end(
          new ExitReason(
              ExitCode.FAILURE, "Kafka Streams is in ERROR; ending so that it is restarted"),
          null);
      return;
    }
    try {
      topics.check(admin, config.get(TOPICS_CHECK_INTERVAL));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private boolean live() {
    if (exitReason != null) {
      return false;
    }
    TopologyApplication running = app;
    return running == null || running.live();
  }

  private boolean ready() {
    TopologyApplication running = app;
    return running != null && running.ready() && topics.status().asDeclared();
  }

  private String state() {
    TopologyApplication running = app;
    if (running == null) {
      return phase;
    }
    return topics.status().asDeclared() ? running.state().name() : "TOPICS_NOT_AS_DECLARED";
  }

  /** Whether it is {@code RUNNING} with every topic as declared. */
  public boolean isReady() {
    return ready();
  }

  /** Blocks until the process must end (topics missing, Kafka Streams failed, or closed). */
  public int awaitExit() throws InterruptedException {
    try {
      return exit.get();
    } catch (ExecutionException e) {
      return ExitCode.FAILURE;
    }
  }

  /** The exit code if the process has ended on its own, else {@code null}. */
  public Integer exitCodeNow() {
    return exit.getNow(null);
  }

  /** Why the process ended on its own (cause and key to change), else {@code null}. */
  public ExitReason exitReason() {
    return exitReason;
  }

  /** Stops Kafka Streams (a clean close commits and keeps local state), then the probes. */
  @Override
  public void close() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      synchronized (exit) {
        exit.complete(ExitCode.OK);
      }
    }
    scheduler.shutdownNow();
    TopologyApplication running = app;
    if (running != null) {
      running.close();
    }
    http.close();
    admin.close(Duration.ofSeconds(5));
  }
}
