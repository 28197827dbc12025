package dev.turnstile.bench;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.turnstile.bridge.config.BridgeConfigModel;
import dev.turnstile.schemas.Json;
import dev.turnstile.topology.config.TopologyConfigModel;
import java.awt.Color;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.ToDoubleFunction;
import org.jfree.chart.ChartFactory;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.data.category.DefaultCategoryDataset;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code bench e2e}: see {@link EndToEndBench}. */
@Command(
    name = "e2e",
    mixinStandardHelpOptions = true,
    description =
        "End-to-end latency, HTTP 202 to the session record visible on device-sessions.v1 under"
            + " read_committed, at half of the pipeline's saturation; bridge and topology each in"
            + " its own JVM on one broker.")
final class EndToEndCommand implements Callable<Integer> {

  @Mixin BenchResults results;

  @Option(
      names = "--flood",
      description =
          "seconds of the closed-loop flood that finds saturation (default: ${DEFAULT-VALUE})")
  double floodSeconds = 10;

  @Option(
      names = "--duration",
      description = "seconds at half of saturation, measured (default: ${DEFAULT-VALUE})")
  double durationSeconds = 30;

  @Option(names = "--connections", description = "HTTP connections (default: ${DEFAULT-VALUE})")
  int connections = 64;

  @Option(names = "--devices", description = "stations (default: ${DEFAULT-VALUE})")
  int devices = 1_000;

  @Option(
      names = "--client-threads",
      description = "event loops of the HTTP load client (default: ${DEFAULT-VALUE})")
  int clientThreads = 2;

  @Option(names = "--set", description = "topology configuration key=value (repeatable)")
  Map<String, String> topologyOverrides = new LinkedHashMap<>();

  @Option(names = "--bridge-set", description = "bridge configuration key=value (repeatable)")
  Map<String, String> bridgeOverrides = new LinkedHashMap<>();

  @Override
  public Integer call() throws IOException {
    Map<String, String> machine = results.begin();
    EndToEndBench.Settings settings =
        new EndToEndBench.Settings(
            results.runs,
            Duration.ofMillis((long) (floodSeconds * 1000)),
            Duration.ofMillis((long) (durationSeconds * 1000)),
            connections,
            devices,
            clientThreads,
            topologyOverrides,
            bridgeOverrides,
            Files.createTempDirectory("turnstile-bench-e2e"));
    EndToEndBench.Report report;
    try {
      report = new EndToEndBench(settings).run();
    } finally {
      TopologyBench.deleteRecursively(settings.workDir());
    }
    results.end(machine);
    summarise(report, machine);
    return 0;
  }

  private void summarise(EndToEndBench.Report report, Map<String, String> machine)
      throws IOException {
    double saturation = median(report, EndToEndBench.Run::saturationEventsPerSecond);
    double offered = median(report, EndToEndBench.Run::offeredEventsPerSecond);
    double p50 = median(report, EndToEndBench.Run::p50Millis);
    double p99 = median(report, EndToEndBench.Run::p99Millis);
    long missing = report.runs().stream().mapToLong(EndToEndBench.Run::missing).sum();
    long target = report.commitIntervalMillis() + 50;
    System.out.printf(
        Locale.ROOT,
        "%nmedians of %d rounds (load average %s -> %s): saturation %,.0f events/s, offered %,.0f"
            + " events/s, HTTP 202 -> visible on device-sessions.v1 (read_committed) p50 %.1f ms,"
            + " p99 %.1f ms; target p99 <= commit interval %d ms + 50 ms = %d ms: %s; events never"
            + " seen: %d%n",
        results.runs,
        machine.get("loadAverageAtStart"),
        machine.get("loadAverageAtEnd"),
        saturation,
        offered,
        p50,
        p99,
        report.commitIntervalMillis(),
        target,
        p99 <= target ? "met" : "NOT met",
        missing);
    ObjectNode json = results.document(machine);
    ObjectNode s = json.putObject("settings");
    s.put("runs", results.runs);
    s.put("floodSeconds", floodSeconds);
    s.put("durationSeconds", durationSeconds);
    s.put("connections", connections);
    s.put("devices", devices);
    s.set(
        "topologyOverrides",
        Json.mapper()
            .valueToTree(
                BenchResults.shown(topologyOverrides, TopologyConfigModel.MODEL::isSecret)));
    s.set(
        "bridgeOverrides",
        Json.mapper()
            .valueToTree(BenchResults.shown(bridgeOverrides, BridgeConfigModel.MODEL::isSecret)));
    s.put("commitIntervalMillis", report.commitIntervalMillis());
    s.put(
        "processes",
        "broker, bridge (BridgeApplication) and topology (TopologyApplication) each in its own JVM"
            + " (-Xmx1g); the HTTP client and the read_committed consumer in the harness");
    ObjectNode medians = json.putObject("medians");
    medians.put("saturationEventsPerSecond", saturation);
    medians.put("offeredEventsPerSecond", offered);
    medians.put("p50Millis", p50);
    medians.put("p99Millis", p99);
    medians.put("targetP99Millis", target);
    medians.put("targetMet", p99 <= target);
    medians.put("eventsNeverSeen", missing);
    json.set("runs", Json.mapper().valueToTree(report.runs()));
    Path file = results.write(json);
    Path chart = results.chart();
    DefaultCategoryDataset data = new DefaultCategoryDataset();
    for (EndToEndBench.Run run : report.runs()) {
      data.addValue(run.p50Millis(), "p50", "round " + run.round());
      data.addValue(run.p99Millis(), "p99", "round " + run.round());
      data.addValue(target, "target p99", "round " + run.round());
    }
    JFreeChart png =
        ChartFactory.createBarChart(
            String.format(
                Locale.ROOT,
                "HTTP 202 -> device-sessions.v1 visible (read_committed) at %,.0f events/s",
                offered),
            machine.get("cores")
                + " cores, "
                + machine.get("cpu")
                + ", Kafka "
                + machine.get("kafka"),
            "ms",
            data,
            PlotOrientation.VERTICAL,
            true,
            false,
            false);
    png.setBackgroundPaint(Color.WHITE);
    ChartUtils.saveChartAsPNG(chart.toFile(), png, 1000, 600);
    System.out.printf("%nresults: %s%nchart:   %s%n", file, chart);
  }

  private static double median(
      EndToEndBench.Report report, ToDoubleFunction<EndToEndBench.Run> figure) {
    return Bench.median(report.runs().stream().mapToDouble(figure).toArray());
  }
}
