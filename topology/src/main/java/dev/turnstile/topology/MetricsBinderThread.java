package dev.turnstile.topology;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The one thread Micrometer's Kafka binder refreshes on, which can also run that refresh now.
 *
 * <p>The binder ({@code KafkaStreamsMetrics}) binds the metrics Kafka Streams has created since its
 * last pass only every refresh interval, and its refresh is not public; tasks and stores create
 * theirs when partitions are assigned, just before {@code RUNNING}. So a pod turned ready before
 * its store and rejection metrics were bound, and a scrape right at readiness missed them. The
 * binder schedules its refresh here, which keeps it, so that {@link #refreshNow} can run it when
 * the client reaches {@code RUNNING}.
 */
final class MetricsBinderThread extends ScheduledThreadPoolExecutor {

  private volatile Runnable refresh = () -> {};

  MetricsBinderThread() {
    super(
        1,
        r -> {
          Thread thread = new Thread(r, "topology-metrics-binder");
          thread.setDaemon(true);
          return thread;
        });
  }

  @Override
  public ScheduledFuture<?> scheduleAtFixedRate(
      Runnable command, long initialDelay, long period, TimeUnit unit) {
    refresh = command;
    return super.scheduleAtFixedRate(command, initialDelay, period, unit);
  }

  /** Runs the binder's refresh on this thread as soon as it is free, then {@code then}. */
  void refreshNow(Runnable then) {
    execute(
        () -> {
          refresh.run();
          then.run();
        });
  }
}
