package dev.turnstile.bench;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.turnstile.bridge.config.BridgeConfigModel;
import dev.turnstile.schemas.Json;
import java.awt.Color;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.jfree.chart.ChartFactory;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.CategoryLabelPositions;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.data.category.DefaultCategoryDataset;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code bench bridge}: see {@link BridgeBench}. */
@Command(
    name = "bridge",
    mixinStandardHelpOptions = true,
    description =
        "HTTP ingest of the Turnstile bridge (single events, batches, latency at half of"
            + " saturation) against the Strimzi HTTP Bridge and a bare Kafka producer, each in its"
            + " own JVM on the same broker, in the same run.")
final class BridgeCommand implements Callable<Integer> {

  @Mixin BenchResults results;

  @Option(
      names = "--connections",
      split = ",",
      description = "HTTP connections of the single-event runs (default: 64,256)")
  List<Integer> connections = List.of(64, 256);

  @Option(
      names = "--batch-sizes",
      description =
          "events per batch request, comma-separated; empty (--batch-sizes=) for no batch runs"
              + " (default: ${DEFAULT-VALUE})")
  String batchSizesText = "10,100";

  private List<Integer> batchSizes;

  @Option(
      names = "--batch-connections",
      description = "HTTP connections of the batch runs (default: ${DEFAULT-VALUE})")
  int batchConnections = 64;

  @Option(
      names = "--warmup",
      description = "seconds of load before measuring (default: ${DEFAULT-VALUE})")
  double warmupSeconds = 5;

  @Option(
      names = "--duration",
      description = "seconds measured per run (default: ${DEFAULT-VALUE})")
  double durationSeconds = 15;

  @Option(names = "--devices", description = "station ids used (default: ${DEFAULT-VALUE})")
  int devices = 10_000;

  @Option(
      names = "--client-threads",
      description = "event loops of the HTTP load client (default: ${DEFAULT-VALUE})")
  int clientThreads = 2;

  @Option(
      names = "--strimzi-home",
      description =
          "the Strimzi HTTP Bridge distribution to compare with (the folder holding libs/);"
              + " without it Strimzi is left out")
  Path strimziHome;

  @Option(
      names = "--strimzi-java",
      description = "java 21+ to run Strimzi with (default: ${DEFAULT-VALUE})")
  String strimziJava = "java";

  @Option(names = "--set", description = "Turnstile bridge configuration key=value (repeatable)")
  Map<String, String> overrides = new LinkedHashMap<>();

  @Option(
      names = "--jvm-warmup",
      description =
          "seconds of unrecorded load on each new server JVM before its first run (default:"
              + " ${DEFAULT-VALUE})")
  double jvmWarmupSeconds = 60;

  @Option(
      names = "--profile",
      description = "profile the Turnstile bridge in round 1 (flame graph in the output folder)")
  boolean profile;

  @Override
  public Integer call() throws IOException {
    batchSizes =
        batchSizesText.isBlank()
            ? List.of()
            : Arrays.stream(batchSizesText.split(","))
                .map(t -> Integer.valueOf(t.strip()))
                .toList();
    Map<String, String> machine = results.begin();
    BridgeBench.Settings settings =
        new BridgeBench.Settings(
            results.runs,
            connections,
            batchSizes,
            batchConnections,
            Duration.ofMillis((long) (warmupSeconds * 1000)),
            Duration.ofMillis((long) (durationSeconds * 1000)),
            devices,
            clientThreads,
            strimziHome,
            strimziJava,
            overrides,
            Duration.ofMillis((long) (jvmWarmupSeconds * 1000)),
            profile,
            results.out,
            Files.createTempDirectory("turnstile-bench-bridge"));
    BridgeBench.Report report;
    try {
      report = new BridgeBench(settings).run();
    } finally {
      TopologyBench.deleteRecursively(settings.workDir());
    }
    results.end(machine);
    summarise(report, machine);
    return 0;
  }

  private void summarise(BridgeBench.Report report, Map<String, String> machine)
      throws IOException {
    Map<String, Double> records = report.median(BridgeBench.Run::recordsPerSecond);
    Map<String, Double> requests = report.median(BridgeBench.Run::requestsPerSecond);
    Map<String, Double> p50 = report.median(BridgeBench.Run::p50Millis);
    Map<String, Double> p99 = report.median(BridgeBench.Run::p99Millis);
    Map<String, Double> serverCpu = report.median(BridgeBench.Run::serverCpuMicrosPerRecord);
    Map<String, Double> brokerCpu = report.median(BridgeBench.Run::brokerCpuMicrosPerRecord);
    double producer = records.getOrDefault("raw-producer", Double.NaN);
    System.out.printf(
        Locale.ROOT,
        "%nmedians of %d rounds, %s warm-up + %s measured per run; load average %s -> %s%n"
            + "%-28s %12s %12s %9s %9s %11s %11s %10s%n",
        results.runs,
        report.settings().warmup(),
        report.settings().duration(),
        machine.get("loadAverageAtStart"),
        machine.get("loadAverageAtEnd"),
        "candidate",
        "requests/s",
        "records/s",
        "p50 ms",
        "p99 ms",
        "server µs/r",
        "broker µs/r",
        "x producer");
    ObjectNode json = results.document(machine);
    json.set("settings", settings(report.settings()));
    ArrayNode medians = json.putArray("medians");
    for (String c : records.keySet()) {
      double ratio = records.get(c) / producer;
      System.out.printf(
          Locale.ROOT,
          "%-28s %,12.0f %,12.0f %9.1f %9.1f %11.1f %11.1f %10.3f%n",
          c,
          requests.get(c),
          records.get(c),
          p50.get(c),
          p99.get(c),
          serverCpu.get(c),
          brokerCpu.get(c),
          ratio);
      medians
          .addObject()
          .put("candidate", c)
          .put("requestsPerSecond", requests.get(c))
          .put("recordsPerSecond", records.get(c))
          .put("p50Millis", p50.get(c))
          .put("p99Millis", p99.get(c))
          .put("serverCpuMicrosPerRecord", serverCpu.get(c))
          .put("brokerCpuMicrosPerRecord", brokerCpu.get(c))
          .put("ratioToRawProducer", ratio);
    }
    ObjectNode targets = json.putObject("targets");
    System.out.println();
    for (int c : connections) {
      double ratio =
          records.getOrDefault("turnstile-single-c" + c, Double.NaN)
              / records.getOrDefault("strimzi-single-c" + c, Double.NaN);
      targets.put("turnstileOverStrimziAt" + c + "Connections", ratio);
      System.out.printf(
          Locale.ROOT,
          "single events, %d connections: Turnstile / Strimzi = %.2f (target >= 5)%n",
          c,
          ratio);
    }
    double halfP99 = p99.getOrDefault("turnstile-half-saturation", Double.NaN);
    targets.put("p99MillisAtHalfSaturation", halfP99);
    System.out.printf(
        Locale.ROOT, "p99 at half of saturation: %.1f ms (target <= 20 ms)%n", halfP99);
    for (int size : batchSizes) {
      String c = "turnstile-batch" + size + "-c" + batchConnections;
      double ratio = records.getOrDefault(c, Double.NaN) / producer;
      targets.put("batch" + size + "OverRawProducer", ratio);
      System.out.printf(
          Locale.ROOT,
          "batches of %d: %.3f x the raw producer's records/s (target >= 0.5)%n",
          size,
          ratio);
    }
    boolean allMatch = report.runs().stream().allMatch(BridgeBench.Run::recordsMatch);
    long blocked = report.runs().stream().mapToLong(BridgeBench.Run::blockedThreadWarnings).sum();
    targets.put("recordsInKafkaEqual2xxInEveryRun", allMatch);
    targets.put("blockedEventLoopWarnings", blocked);
    System.out.printf(
        "records in Kafka = 2xx answers x events per request in every run: %s; Vert.x"
            + " blocked-thread warnings in the Turnstile bridge: %d%n",
        allMatch ? "yes" : "NO", blocked);
    json.set("runs", Json.mapper().valueToTree(report.runs()));
    Path file = results.write(json);
    Path chart = results.chart();
    chart(report, records, machine, chart);
    System.out.printf("%nresults: %s%nchart:   %s%n", file, chart);
  }

  private ObjectNode settings(BridgeBench.Settings s) {
    ObjectNode node = Json.mapper().createObjectNode();
    node.put("runs", s.runs());
    node.set("connections", Json.mapper().valueToTree(s.connections()));
    node.set("batchSizes", Json.mapper().valueToTree(s.batchSizes()));
    node.put("batchConnections", s.batchConnections());
    node.put("warmupSeconds", s.warmup().toMillis() / 1000.0);
    node.put("durationSeconds", s.duration().toMillis() / 1000.0);
    node.put("devices", s.devices());
    node.put("jvmWarmupSeconds", s.jvmWarmup().toMillis() / 1000.0);
    node.put(
        "loadClient",
        "Vert.x HttpClient, HTTP/1.1 keep-alive, "
            + s.clientThreads()
            + " event loops, in the harness JVM");
    node.put(
        "turnstileBridge",
        "own JVM (-Xmx1g), defaults"
            + (s.bridgeOverrides().isEmpty()
                ? ""
                : " with "
                    + BenchResults.shown(s.bridgeOverrides(), BridgeConfigModel.MODEL::isSecret))
            + "; producer "
            + producerSettings(s));
    node.put(
        "strimziBridge",
        s.strimziHome() == null
            ? "not run"
            : "own JVM (-Xmx1g) on "
                + s.strimziJava()
                + ", "
                + strimziJar(s.strimziHome())
                + "; "
                + StrimziBridge.PRODUCER_SETTINGS);
    node.put(
        "rawProducer",
        "own JVM (-Xmx1g), KafkaProducer "
            + producerSettings(s)
            + ", max.block.ms Kafka's default, 10,000 in flight");
    return node;
  }

  /** The producer settings both the bridge and the raw producer run with, for the report. */
  private static String producerSettings(BridgeBench.Settings s) {
    Map<String, Object> settings = ProducerRunner.config(s.bridgeOverrides());
    settings.remove(ProducerConfig.CLIENT_ID_CONFIG);
    // A producer key is the bridge's kafka.producer.<key>: the bridge's model says which are
    // secret.
    return BenchResults.shown(
            settings,
            key -> BridgeConfigModel.MODEL.isSecret(BridgeConfigModel.KAFKA_PRODUCER_PREFIX + key))
        .toString();
  }

  private static String strimziJar(Path home) {
    try (var files = Files.list(home.resolve("libs"))) {
      return files
          .map(p -> p.getFileName().toString())
          .filter(n -> n.startsWith("kafka-bridge-"))
          .findFirst()
          .orElse("kafka-bridge (version unknown)");
    } catch (IOException e) {
      return "kafka-bridge (version unknown)";
    }
  }

  private void chart(
      BridgeBench.Report report, Map<String, Double> records, Map<String, String> machine, Path png)
      throws IOException {
    DefaultCategoryDataset data = new DefaultCategoryDataset();
    for (BridgeBench.Run run : report.runs()) {
      data.addValue(run.recordsPerSecond(), "round " + run.round(), run.candidate());
    }
    records.forEach((c, v) -> data.addValue(v, "median", c));
    JFreeChart chart =
        ChartFactory.createBarChart(
            "Bridge ingest, acks=all, records/s, real broker, same run",
            machine.get("cores")
                + " cores, "
                + machine.get("cpu")
                + ", Kafka "
                + machine.get("kafka")
                + ", load average "
                + machine.get("loadAverageAtStart"),
            "records/s",
            data,
            PlotOrientation.VERTICAL,
            true,
            false,
            false);
    chart.setBackgroundPaint(Color.WHITE);
    chart.getCategoryPlot().getDomainAxis().setCategoryLabelPositions(CategoryLabelPositions.UP_45);
    ChartUtils.saveChartAsPNG(png.toFile(), chart, 1200, 700);
  }
}
