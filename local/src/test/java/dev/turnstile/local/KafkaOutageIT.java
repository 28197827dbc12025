package dev.turnstile.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Kafka goes away while stations are sending: the bridge answers 503 with Retry-After instead of
 * 202, the stations send again, Kafka comes back, and every session still appears exactly once.
 */
class KafkaOutageIT {

  static LocalStack stack;
  static List<ChargingSession> sample;

  @BeforeAll
  static void start() throws InterruptedException {
    stack =
        LocalStack.start(
            0,
            Map.of(
                "bridge.duplicate-cache.size", "0",
                "bridge.kafka.ack-timeout-ms", "1500",
                "bridge.http.retry-after-seconds", "1"));
    sample =
        EvChargingDataset.read(Path.of("..", TurnstileCli.DEFAULT_DATA.toString())).subList(0, 150);
  }

  @AfterAll
  static void stop() {
    stack.close();
  }

  @Test
  void devicesRetryingThrough503sLoseNothingAndCountNothingTwice() throws Exception {
    Demo demo =
        new Demo(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
    stack.kafka().stopBroker();

    CompletableFuture<Replayer.Report> replay =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return demo.replay(stack, sample, new Replayer.Plan(11L, 0.3, 0.2, 8));
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
              }
            });
    await().atMost(Duration.ofSeconds(30)).until(() -> unavailableAnswers() >= 5);
    stack.kafka().restartBroker();

    Replayer.Report report = replay.get();
    Reconciliation table = demo.reconcile(stack, sample, report);

    assertThat(report.unavailable()).isGreaterThanOrEqualTo(5);
    assertThat(report.failed()).as("requests given up").isZero();
    assertThat(table.reconciled()).as(table.table()).isTrue();
    assertThat(table.json().get("sessionsClosed").asLong()).isEqualTo(150);
  }

  private static double unavailableAnswers() {
    return stack
        .bridge()
        .meterRegistry()
        .find("turnstile.bridge.device.events")
        .tag("outcome", "unavailable")
        .counters()
        .stream()
        .mapToDouble(c -> c.count())
        .sum();
  }
}
