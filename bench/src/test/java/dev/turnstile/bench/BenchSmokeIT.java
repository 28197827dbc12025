package dev.turnstile.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.turnstile.schemas.Json;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The benchmark harness in its short form, as CI runs it: a broker process, a few thousand events
 * through the bridge's write path, a pass-through and the topology each in its own JVM, a results
 * file and a chart. Checks the harness works and its figures are sane, not how fast anything is.
 */
class BenchSmokeIT {

  @TempDir Path out;

  @Test
  void theTopologyBenchmarkRunsAndWritesItsFigures() throws Exception {
    int exit =
        new CommandLine(new Bench())
            .execute(
                "topology",
                "--events",
                "3000",
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
  }

  @Test
  void theCostBenchmarkRunsInTopologyTestDriver() {
    assertThat(new CommandLine(new Bench()).execute("cost", "500", "500", "50")).isZero();
  }
}
