package dev.turnstile.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.turnstile.local.EvChargingDataset;
import dev.turnstile.schemas.Json;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The benchmark harness in its short form, as CI runs it: a broker process, a few thousand events
 * through the bridge's write path, a pass-through and the topology each in its own JVM (each after
 * warm-up passes over an input of its own, more than one for the pass-through), a results file and
 * a chart; the bridge benchmark (without Strimzi, which CI does not build) and the end-to-end one
 * in a few seconds each. Checks the harness works and its figures are sane, not how fast anything
 * is.
 */
class BenchSmokeIT {

  @TempDir Path out;

  @Test
  void theTopologyBenchmarkRunsAndWritesItsFigures() throws Exception {
    int exit =
        new CommandLine(new Bench())
            .execute(
                "topology",
                "--data",
                Path.of("..").resolve(EvChargingDataset.SHIPPED).toString(),
                "--events",
                "3000",
                "--warmup-events",
                "2000",
                "--warmup-seconds",
                "10",
                "--devices",
                "100",
                "--runs",
                "1",
                "--candidates",
                "pass-through,turnstile",
                "--out",
                out.toString());

    assertThat(exit).isZero();
    JsonNode results = Json.mapper().readTree(out.resolve("topology.json").toFile());
    assertThat(results.path("load").path("records").asLong()).isEqualTo(3000);
    assertThat(results.path("medians")).hasSize(2);
    for (JsonNode median : results.path("medians")) {
      assertThat(median.path("eventsPerSecond").asDouble()).as(median.toString()).isPositive();
      assertThat(median.path("appCpuMicrosPerEvent").asDouble()).isPositive();
    }
    JsonNode turnstile = results.path("medians").get(1);
    assertThat(turnstile.path("candidate").asText()).isEqualTo("turnstile");
    // Dedup, sessions and hops write more than the one output record of a pass-through.
    assertThat(turnstile.path("offsetsWrittenPerEvent").asDouble()).isGreaterThan(2);
    assertThat(Files.size(out.resolve("topology.png"))).isPositive();
    for (JsonNode run : results.path("runs")) {
      // 2,000 events a pass for 10 s: a pass-through finishes several, Turnstile at least one.
      assertThat(run.path("warmupPasses").asInt())
          .as(run.path("candidate").asText())
          .isGreaterThan(run.path("candidate").asText().equals("pass-through") ? 1 : 0);
      assertThat(run.path("warmupEvents").asLong()).isGreaterThanOrEqualTo(2000);
    }
  }

  @Test
  void theBridgeBenchmarkRunsAndEvery2xxIsARecordInKafka() throws Exception {
    int exit =
        new CommandLine(new Bench())
            .execute(
                "bridge",
                "--runs",
                "1",
                "--warmup",
                "1",
                "--duration",
                "2",
                "--jvm-warmup",
                "1",
                "--connections",
                "8",
                "--batch-sizes",
                "10",
                "--out",
                out.toString());

    assertThat(exit).isZero();
    JsonNode results = Json.mapper().readTree(out.resolve("bridge.json").toFile());
    assertThat(results.path("medians"))
        .extracting(m -> m.path("candidate").asText())
        .containsExactly(
            "turnstile-single-c8",
            "turnstile-batch10-c64",
            "turnstile-half-saturation",
            "raw-producer");
    for (JsonNode median : results.path("medians")) {
      assertThat(median.path("recordsPerSecond").asDouble()).as(median.toString()).isPositive();
    }
    assertThat(results.path("targets").path("recordsInKafkaEqual2xxInEveryRun").asBoolean())
        .isTrue();
    assertThat(results.path("targets").path("blockedEventLoopWarnings").asLong()).isZero();
    assertThat(Files.size(out.resolve("bridge.png"))).isPositive();
  }

  @Test
  void theEndToEndBenchmarkSeesEveryAcceptedEventsSessionRecord() throws Exception {
    int exit =
        new CommandLine(new Bench())
            .execute(
                "e2e",
                "--runs",
                "1",
                "--flood",
                "2",
                "--duration",
                "3",
                "--devices",
                "50",
                "--out",
                out.toString());

    assertThat(exit).isZero();
    JsonNode results = Json.mapper().readTree(out.resolve("e2e.json").toFile());
    JsonNode run = results.path("runs").get(0);
    assertThat(run.path("accepted").asLong()).isPositive();
    assertThat(run.path("missing").asLong()).isZero();
    assertThat(results.path("medians").path("p99Millis").asDouble()).isPositive();
    assertThat(Files.size(out.resolve("e2e.png"))).isPositive();
  }

  @Test
  void theCostBenchmarkRunsInTopologyTestDriver() {
    assertThat(new CommandLine(new Bench()).execute("cost", "500", "500", "50")).isZero();
  }
}
