package dev.turnstile.bridge.adapter.kafka;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether Kafka answers: a cluster description fetched periodically on its own thread, so the
 * readiness endpoint reads a cached answer and never waits on the network.
 */
public final class KafkaReadinessProbe implements BooleanSupplier, AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(KafkaReadinessProbe.class);

  private final Admin admin;
  private final ScheduledExecutorService scheduler;
  private final Duration interval;
  private volatile boolean reachable;
  private volatile long reachableCheckStartedNanos = Long.MIN_VALUE;

  /**
   * @param clientProperties common client keys (bootstrap servers, security); those an admin client
   *     does not know are left out
   * @param interval time between checks; each check waits at most this long
   */
  public KafkaReadinessProbe(Map<String, String> clientProperties, Duration interval) {
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

  /** Starts checking now and then every interval. */
  public KafkaReadinessProbe start() {
    scheduler.scheduleWithFixedDelay(this::check, 0, interval.toMillis(), TimeUnit.MILLISECONDS);
    return this;
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
      reachableCheckStartedNanos = started;
    }
    reachable = now;
  }

  /**
   * Whether Kafka answered a check that started at or after {@code nanoTime} ({@link
   * System#nanoTime()}), so an answer cached from before an outage was noticed does not count.
   */
  public boolean reachableSince(long nanoTime) {
    return reachable && reachableCheckStartedNanos - nanoTime >= 0;
  }

  /** The last check's answer; {@code false} until a check succeeded. */
  @Override
  public boolean getAsBoolean() {
    return reachable;
  }

  @Override
  public void close() {
    scheduler.shutdownNow();
    admin.close(Duration.ofSeconds(1));
  }
}
