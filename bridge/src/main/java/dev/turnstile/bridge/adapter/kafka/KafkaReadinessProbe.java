package dev.turnstile.bridge.adapter.kafka;

import dev.turnstile.runtime.topics.TopicWatch;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether Kafka answers and the bridge's topics exist as the catalogue declares them: a cluster
 * description and a {@link TopicWatch} check fetched periodically on its own thread, so the
 * readiness endpoint and the publisher read a cached answer and never wait on the network.
 */
public final class KafkaReadinessProbe implements BooleanSupplier, AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(KafkaReadinessProbe.class);

  private final Admin admin;
  private final ScheduledExecutorService scheduler;
  private final Duration interval;
  private final TopicWatch topics;
  private volatile Consumer<Set<String>> onRecreated = recreated -> {};
  private volatile boolean reachable;
  private volatile long reachableCheckStartedNanos = Long.MIN_VALUE;

  /**
   * @param clientProperties common client keys (bootstrap servers, security); those an admin client
   *     does not know are left out
   * @param interval time between checks; each check waits at most this long
   * @param topics the topics the bridge writes
   */
  public KafkaReadinessProbe(
      Map<String, String> clientProperties, Duration interval, TopicWatch topics) {
    this.topics = topics;
    Map<String, Object> config = new HashMap<>();
    clientProperties.forEach(
        (key, value) -> {
          if (AdminClientConfig.configNames().contains(key)) {
            config.put(key, value);
          }
        });
    config.put(AdminClientConfig.CLIENT_ID_CONFIG, "turnstile-bridge-readiness");
    int timeoutMs = (int) interval.toMillis();
    config.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, timeoutMs);
    config.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, timeoutMs);
    this.admin = Admin.create(config);
    this.interval = interval;
    this.scheduler =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread thread = new Thread(r, "turnstile-kafka-readiness");
              thread.setDaemon(true);
              return thread;
            });
  }

  /**
   * Checks once on the caller's thread, so that writes are possible as soon as this returns when
   * Kafka and the topics are fine, then every interval.
   */
  public KafkaReadinessProbe start() {
    check();
    scheduler.scheduleWithFixedDelay(
        this::check, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
    return this;
  }

  /** Called with the topics found deleted and created again since the previous check. */
  public void onRecreated(Consumer<Set<String>> listener) {
    this.onRecreated = listener;
  }

  /** {@code turnstile.topics.as.declared}: 1 while every topic is as the catalogue declares. */
  public void bindMetrics(MeterRegistry registry) {
    Gauge.builder("turnstile.topics.as.declared", this, p -> p.topicsAsDeclared() ? 1 : 0)
        .description("1 while every topic this process uses exists as the catalogue declares")
        .register(registry);
  }

  private void check() {
    boolean now;
    long started = System.nanoTime();
    try {
      admin
          .describeCluster(new DescribeClusterOptions().timeoutMs((int) interval.toMillis()))
          .clusterId()
          .get(interval.toMillis(), TimeUnit.MILLISECONDS);
      now = true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return;
    } catch (Exception e) {
      now = false;
    }
    if (now != reachable) {
      LOG.info("Kafka is {}", now ? "reachable" : "unreachable");
    }
    if (now) {
      try {
        TopicWatch.Status status = topics.check(admin, interval);
        if (!status.recreated().isEmpty()) {
          onRecreated.accept(status.recreated());
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (RuntimeException e) {
        LOG.warn("topic check failed", e);
      }
      reachableCheckStartedNanos = started;
    }
    reachable = now;
  }

  /** Whether the last answered check found every topic as declared. */
  public boolean topicsAsDeclared() {
    return topics.status().asDeclared();
  }

  /** Why {@code topic} must not be written now, or {@code null} when it may be. */
  public String whyNotWritable(String topic) {
    TopicWatch.Status status = topics.status();
    if (status.writable(topic)) {
      return null;
    }
    List<String> problems = status.problems().getOrDefault(topic, status.describe());
    return String.join("; ", problems);
  }

  /**
   * Whether Kafka answered a check that started at or after {@code nanoTime} ({@link
   * System#nanoTime()}), so an answer cached from before an outage was noticed does not count.
   */
  public boolean reachableSince(long nanoTime) {
    return reachable && reachableCheckStartedNanos - nanoTime >= 0;
  }

  /**
   * Readiness: Kafka answered the last check and every topic was found as declared; {@code false}
   * until a check succeeded.
   */
  @Override
  public boolean getAsBoolean() {
    return reachable && topicsAsDeclared();
  }

  @Override
  public void close() {
    scheduler.shutdownNow();
    admin.close(Duration.ofSeconds(1));
  }
}
