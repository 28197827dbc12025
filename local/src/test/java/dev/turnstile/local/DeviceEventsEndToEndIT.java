package dev.turnstile.local;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Real HTTP on loopback into the bridge, a real in-process broker, the real topology; outputs read
 * {@code read_committed}. The bridge's recent-duplicate cache is off, so every resend reaches Kafka
 * and only the topology's dedup stands between a device's retries and a second session.
 */
class DeviceEventsEndToEndIT {

  static LocalStack stack;
  static List<ChargingSession> sample;

  @BeforeAll
  static void start() throws InterruptedException {
    stack = LocalStack.start(0, Map.of("bridge.duplicate-cache.size", "0"));
    sample =
        EvChargingDataset.read(Path.of("..", TurnstileCli.DEFAULT_DATA.toString())).subList(0, 400);
  }

  @AfterAll
  static void stop() {
    stack.close();
  }

  @Test
  void resentAndReorderedEventsGiveEverySessionExactlyOnce() throws Exception {
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    Demo demo = new Demo(new PrintStream(log, true, StandardCharsets.UTF_8));

    Reconciliation table =
        demo.replayAndReconcile(stack, sample, new Replayer.Plan(7L, 0.4, 0.3, 16));

    assertThat(table.reconciled()).as(table.table()).isTrue();
    var figures = table.json();
    assertThat(figures.get("sessionsOpened").asLong()).isEqualTo(400);
    assertThat(figures.get("sessionsClosed").asLong()).isEqualTo(400);
    assertThat(figures.get("bridgeDuplicates").asLong()).isZero();
    assertThat(figures.get("duplicatesDropped").asLong())
        .isEqualTo(figures.get("duplicatesInjected").asLong())
        .isGreaterThan(100);
    assertThat(figures.get("rejected").asLong()).isZero();
    // Billing on Service Bus: lost completes put copies in Kafka; one settled session per row.
    assertThat(figures.get("billingRedelivered").asLong()).isPositive();
    assertThat(figures.get("billingDuplicatesDropped").asLong())
        .isEqualTo(figures.get("billingRedelivered").asLong());
    assertThat(figures.get("settledSessions").asLong()).isEqualTo(400);
  }
}
