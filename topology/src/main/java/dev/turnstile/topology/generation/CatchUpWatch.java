package dev.turnstile.topology.generation;

import dev.turnstile.topology.config.TopologyConfig;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.apache.kafka.clients.admin.Admin;

/**
 * Watches a generation catch up with the raw topics: every {@code interval} it reads the
 * generation's {@link GenerationStatus} and reports the lag and the rate at which the generation
 * reads the raw topics, until no lag is left; then it reports how long catching up took. The rate
 * counts the raw topics' offsets committed since the watch began, per second of wall time.
 */
public final class CatchUpWatch implements AutoCloseable {

  /**
   * What catching up took.
   *
   * @param seconds from the start of the watch to the first status without lag
   * @param rawOffsetsRead offsets of the raw topics committed in that time
   */
  public record CaughtUp(double seconds, long rawOffsetsRead) {

    /** Raw-topic offsets read per second (each an event, where the raw topics hold no marker). */
    public double perSecond() {
      return seconds <= 0 ? 0 : rawOffsetsRead / seconds;
    }
  }

  private final Admin admin;
  private final TopologyConfig config;
  private final Consumer<String> report;
  private final ScheduledExecutorService scheduler;
  private final CompletableFuture<CaughtUp> caughtUp = new CompletableFuture<>();
  private final long started = System.nanoTime();
  private long readAtStart = -1;

  private CatchUpWatch(TopologyConfig config, Consumer<String> report) {
    this.config = config;
    this.report = report;
    this.admin = GenerationCommand.Cluster.admin(config);
    this.scheduler =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread thread = new Thread(r, "generation-catch-up-watch");
              thread.setDaemon(true);
              return thread;
            });
  }

  /** Starts watching {@code config}'s generation, reporting a line every {@code interval}. */
  public static CatchUpWatch start(
      TopologyConfig config, Duration interval, Consumer<String> report) {
    CatchUpWatch watch = new CatchUpWatch(config, report);
    watch.scheduler.scheduleWithFixedDelay(
        watch::check, 0, interval.toMillis(), TimeUnit.MILLISECONDS);
    return watch;
  }

  private void check() {
    if (caughtUp.isDone()) {
      return;
    }
    try {
      GenerationStatus status = GenerationStatus.read(admin, config, Duration.ofSeconds(30));
      if (readAtStart < 0) {
        readAtStart = status.rawOffsetsRead();
      }
      double seconds = (System.nanoTime() - started) / 1e9;
      long read = status.rawOffsetsRead() - readAtStart;
      if (status.caughtUp() && status.members() > 0) {
        CaughtUp done = new CaughtUp(seconds, read);
        report.accept(
            String.format(
                "generation %s CAUGHT UP after %.1f s: %,d raw offsets read, %,.0f per second",
                config.generation(), seconds, read, done.perSecond()));
        caughtUp.complete(done);
      } else {
        report.accept(
            String.format(
                "generation %s catching up: %,d offsets to read; %,d raw offsets read in %.0f s",
                config.generation(), status.lag(), read, seconds));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException | RuntimeException e) {
      report.accept("generation " + config.generation() + ": status not read: " + e);
    }
  }

  /** Waits until the generation has caught up; empty when {@code timeout} passes first. */
  public java.util.Optional<CaughtUp> awaitCaughtUp(Duration timeout) throws InterruptedException {
    try {
      return java.util.Optional.of(caughtUp.get(timeout.toMillis(), TimeUnit.MILLISECONDS));
    } catch (TimeoutException e) {
      return java.util.Optional.empty();
    } catch (ExecutionException e) {
      throw new IllegalStateException(e.getCause());
    }
  }

  @Override
  public void close() {
    scheduler.shutdownNow();
    admin.close(Duration.ofSeconds(5));
  }
}
