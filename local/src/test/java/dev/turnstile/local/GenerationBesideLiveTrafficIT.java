package dev.turnstile.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.turnstile.schemas.Generation;
import dev.turnstile.topology.TopologyServer;
import dev.turnstile.topology.generation.CatchUpWatch;
import dev.turnstile.topology.generation.DiffReport;
import dev.turnstile.topology.generation.GenerationDiff;
import dev.turnstile.topology.generation.GenerationStatus;
import dev.turnstile.topology.generation.OutputView;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A second generation started while the first serves live traffic: the demo's replay over real HTTP
 * and Service Bus, with its resends and reordering, and generation {@code g2} starting once a third
 * of the events are in. The first generation's outputs reconcile with the CSV exactly as in the
 * demo; {@code g2} catches up, reading the raw topics from their start while they grow, and its
 * outputs equal the first's.
 *
 * <p>{@code -Dturnstile.generations.sessions=3395} runs it on the whole file (default 400) and
 * prints the live and reprocessing rates.
 */
class GenerationBesideLiveTrafficIT {

  static final int SESSIONS = Integer.getInteger("turnstile.generations.sessions", 400);

  static LocalStack stack;
  static List<ChargingSession> rows;
  static volatile TopologyServer generation;

  @BeforeAll
  static void start() throws InterruptedException {
    stack = LocalStack.start(0, Map.of("bridge.duplicate-cache.size", "0"));
    rows =
        EvChargingDataset.read(Path.of("..", TurnstileCli.DEFAULT_DATA.toString()))
            .subList(0, SESSIONS);
  }

  @AfterAll
  static void stop() {
    stack.close();
  }

  @Test
  void aGenerationStartedUnderLiveTrafficCatchesUpAndLeavesTheFirstAsTheDemoHasIt()
      throws Exception {
    Generation g2 = Generation.named("g2");
    CompletableFuture<CatchUpWatch.CaughtUp> second =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                await()
                    .atMost(Duration.ofMinutes(3))
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> rawEvents() >= 2L * SESSIONS / 3);
                generation = stack.startGeneration(g2, Map.of("topology.http.port", "0"));
                try (CatchUpWatch watch =
                    CatchUpWatch.start(generation.config(), Duration.ofMillis(500), line -> {})) {
                  return watch.awaitCaughtUp(Duration.ofMinutes(5)).orElseThrow();
                }
              } catch (InterruptedException e) {
                throw new IllegalStateException(e);
              }
            });
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    Demo demo = new Demo(new PrintStream(log, true, StandardCharsets.UTF_8));
    long replayStarted = System.nanoTime();

    Reconciliation table =
        demo.replayAndReconcile(stack, rows, new Replayer.Plan(20141118L, 0.25, 0.15, 32));
    double liveSeconds = (System.nanoTime() - replayStarted) / 1e9;

    assertThat(table.reconciled()).as(table.table()).isTrue();
    assertThat(table.json().get("settledSessions").asLong()).isEqualTo(SESSIONS);
    CatchUpWatch.CaughtUp caughtUp = second.get();
    // Caught up once with the traffic of the moment; now with all of it.
    try (Admin admin = stack.kafka().admin()) {
      await()
          .atMost(Duration.ofMinutes(5))
          .until(
              () ->
                  GenerationStatus.read(admin, generation.config(), Duration.ofSeconds(10))
                      .caughtUp());
    }

    long raw = rawEvents() + rawMessages();
    System.out.printf(
        "live generation: %,d raw records (%,d sessions) replayed and reconciled in %.1f s,"
            + " %,.0f records/s (the replay's pace); g2, started a third of the way in, first"
            + " caught up with the traffic %.1f s after its start, having read %,d raw records"
            + " (Kafka Streams start-up included): %,.0f raw records/s%n",
        raw,
        SESSIONS,
        liveSeconds,
        raw / liveSeconds,
        caughtUp.seconds(),
        caughtUp.rawOffsetsRead(),
        caughtUp.perSecond());

    GenerationDiff.Report report =
        GenerationDiff.compare(
            Map.of("bootstrap.servers", stack.bootstrapServers()),
            "",
            Generation.DEFAULT,
            g2,
            Duration.ofMinutes(2));
    StringWriter text = new StringWriter();
    DiffReport.print(report, new PrintWriter(text), 3);
    assertThat(report.allEqual()).as(text.toString()).isTrue();
    assertThat(report.topic(OutputView.POST_MERGE).equal()).isEqualTo(SESSIONS);
    assertThat(report.topic(OutputView.DEVICE_SESSIONS).equal()).isEqualTo(SESSIONS);

    // The reprocessing rate on its own: a third generation, started with all the input in.
    long started = System.nanoTime();
    TopologyServer g3 =
        stack.startGeneration(Generation.named("g3"), Map.of("topology.http.port", "0"));
    double running = (System.nanoTime() - started) / 1e9;
    try (CatchUpWatch watch = CatchUpWatch.start(g3.config(), Duration.ofMillis(200), line -> {})) {
      assertThat(watch.awaitCaughtUp(Duration.ofMinutes(5))).isPresent();
    }
    double seconds = (System.nanoTime() - started) / 1e9;
    System.out.printf(
        "g3, started after the replay: %,d raw records reprocessed in %.1f s from its start"
            + " (%.1f s of it to RUNNING): %,.0f raw records/s; %,.0f after RUNNING%n",
        raw, seconds, running, raw / seconds, raw / (seconds - running));
  }

  static long rawEvents() throws Exception {
    return endOffsets("device-events.raw.v1");
  }

  static long rawMessages() throws Exception {
    return endOffsets("servicebus-messages.raw.v1");
  }

  static long endOffsets(String topic) throws Exception {
    try (Admin admin = stack.kafka().admin()) {
      Map<TopicPartition, OffsetSpec> request = new java.util.HashMap<>();
      for (int p = 0; p < 6; p++) {
        request.put(new TopicPartition(topic, p), OffsetSpec.latest());
      }
      return admin.listOffsets(request).all().get().values().stream()
          .mapToLong(i -> i.offset())
          .sum();
    }
  }
}
