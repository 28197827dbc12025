package dev.turnstile.bench;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.turnstile.local.EvChargingDataset;
import dev.turnstile.schemas.Json;
import dev.turnstile.topology.config.TopologyConfigModel;
import java.awt.Color;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import org.jfree.chart.ChartFactory;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.data.category.DefaultCategoryDataset;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** Turnstile's benchmarks on a real broker. Each prints its figures and writes them to a folder. */
@Command(
    name = "bench",
    mixinStandardHelpOptions = true,
    subcommands = {
      Bench.TopologyCommand.class,
      Bench.CostCommand.class,
      Bench.RestoreCommand.class,
      Bench.QueriesCommand.class,
      BridgeCommand.class,
      EndToEndCommand.class
    },
    description = "Benchmarks on a real broker, with baselines measured in the same run.")
public final class Bench implements Runnable {

  @Override
  public void run() {
    new CommandLine(this).usage(System.out);
  }

  public static void main(String[] args) {
    System.exit(new CommandLine(new Bench()).execute(args));
  }

  @Command(
      name = "topology",
      mixinStandardHelpOptions = true,
      description =
          "Events/s and CPU per event of the Turnstile topology against a Kafka Streams"
              + " pass-through and a naive RocksDB dedup, all exactly_once_v2, on the same input.")
  static final class TopologyCommand implements Callable<Integer> {
    @Mixin BenchResults results;

    @Option(
        names = "--data",
        description =
            "the EV charging sessions CSV the session durations are drawn from (default:"
                + " ${DEFAULT-VALUE})")
    Path data = EvChargingDataset.SHIPPED;

    @Option(names = "--events", description = "input records (default: ${DEFAULT-VALUE})")
    long events = 1_000_000;

    @Option(
        names = "--warmup-events",
        description =
            "device events of the warm-up load (same shape, its own seed; with billing, its"
                + " sessions' billing messages too): each candidate's JVM first runs the same"
                + " candidate over all of it with its own application id, state and topics, closes"
                + " it, and repeats until --warmup-seconds have passed, then runs the measured"
                + " pass, so the JIT has compiled the candidate's path before anything is measured;"
                + " 0 measures a cold JVM (default: ${DEFAULT-VALUE})")
    long warmupEvents = 300_000;

    @Option(
        names = "--warmup-seconds",
        description =
            "warm-up passes go on until this long after the child JVM's start, at least one: the"
                + " JIT needs time more than events (a pass-through's 300,000 take 3 s)"
                + " (default: ${DEFAULT-VALUE})")
    long warmupSeconds = 60;

    @Option(names = "--devices", description = "stations (default: ${DEFAULT-VALUE})")
    int devices = 10_000;

    @Option(
        names = "--resend-fraction",
        description = "events sent twice with the same id (default: ${DEFAULT-VALUE})")
    double resendFraction = 0.1;

    @Option(
        names = "--billing",
        negatable = true,
        defaultValue = "true",
        fallbackValue = "true",
        description =
            "one billing message per session on Service Bus's raw topic, so sessions settle"
                + " through merge and post-merge (the topology's events then count both);"
                + " --no-billing leaves it out (default: ${DEFAULT-VALUE})")
    boolean billing;

    @Option(
        names = "--warm-fraction",
        description =
            "measure rates and CPU only after each candidate's measured pass processed this"
                + " fraction of its input: leaves the client's start-up (group join, tasks,"
                + " producers, first fetches) out of the window, and, with --warmup-events 0, most"
                + " of the JIT's warm-up (default: ${DEFAULT-VALUE})")
    double warmFraction = 0.2;

    @Option(
        names = "--checkpoints",
        split = ",",
        description =
            "print the cost per record in a window after this many records were processed"
                + " (e.g. 100000,1000000,10000000: does the cost grow with the ids remembered?)")
    List<Long> checkpoints = List.of();

    @Option(
        names = "--window",
        description = "records per checkpoint window (default: ${DEFAULT-VALUE})")
    long window = 200_000;

    @Option(
        names = "--candidates",
        split = ",",
        description = "which to run, in order (default: pass-through,naive-dedup,turnstile)")
    List<String> candidates = List.of("pass-through", "naive-dedup", "turnstile");

    @Option(
        names = "--profile",
        split = ",",
        description = "candidates to profile in round 1 (flame graphs in the output folder)")
    List<String> profile = List.of();

    @Option(
        names = "--profile-event",
        description = "itimer (CPU) or wall (also where threads wait) (default: ${DEFAULT-VALUE})")
    String profileEvent = "itimer";

    @Option(
        names = "--set",
        description = "topology configuration key=value for every candidate (repeatable)")
    Map<String, String> overrides = new LinkedHashMap<>();

    @Override
    public Integer call() throws IOException {
      Map<String, String> machine = results.begin();
      Set<StreamsCandidate> profiled = EnumSet.noneOf(StreamsCandidate.class);
      profile.forEach(p -> profiled.add(StreamsCandidate.of(p)));
      TopologyBench.Settings settings =
          new TopologyBench.Settings(
              data,
              events,
              warmupEvents,
              warmupSeconds,
              devices,
              resendFraction,
              billing,
              checkpoints,
              window,
              warmFraction,
              results.runs,
              candidates.stream().map(StreamsCandidate::of).toList(),
              profiled,
              profileEvent,
              overrides,
              Files.createTempDirectory("turnstile-bench"),
              results.out);
      TopologyBench.Report report;
      try {
        report = new TopologyBench(settings).run();
      } finally {
        TopologyBench.deleteRecursively(settings.workDir());
      }
      results.end(machine);
      summarise(report, machine);
      return 0;
    }

    private void summarise(TopologyBench.Report report, Map<String, String> machine)
        throws IOException {
      Map<String, Double> rate = report.median(TopologyBench.Run::eventsPerSecond);
      Map<String, Double> cpu = report.median(TopologyBench.Run::appCpuMicrosPerEvent);
      Map<String, Double> jit = report.median(TopologyBench.Run::jitShare);
      Map<String, Double> brokerCpu = report.median(TopologyBench.Run::brokerCpuMicrosPerEvent);
      Map<String, Double> written = report.median(TopologyBench.Run::offsetsWrittenPerEvent);
      Map<String, Double> state = report.median(r -> (double) r.stateBytes());
      Map<String, Double> rss = report.median(r -> (double) r.rssBytes());
      double baseline = rate.getOrDefault("pass-through", Double.NaN);
      System.out.printf(
          Locale.ROOT,
          "%nmedians of %d rounds, %,d events%s%n%-13s %12s %10s %12s %6s %12s %10s %14s %9s%n",
          results.runs,
          events,
          warmupEvents > 0
              ? String.format(
                  Locale.ROOT,
                  ", each candidate after %d s or more of warm-up passes over %,d events of its"
                      + " own",
                  warmupSeconds,
                  warmupEvents)
              : ", no warm-up pass",
          "candidate",
          "events/s",
          "ratio",
          "app µs/ev",
          "JIT %",
          "broker µs/ev",
          "offs/ev",
          "state B/id",
          "RSS MiB");
      ObjectNode json = results.document(machine);
      json.set(
          "settings",
          Json.mapper()
              .valueToTree(
                  Map.of(
                      "events",
                      events,
                      "warmupEvents",
                      warmupEvents,
                      "warmupSeconds",
                      warmupSeconds,
                      "devices",
                      devices,
                      "resendFraction",
                      resendFraction,
                      "billing",
                      billing,
                      "warmFraction",
                      warmFraction,
                      "runs",
                      results.runs,
                      "overrides",
                      BenchResults.shown(overrides, TopologyConfigModel.MODEL::isSecret))));
      json.set("load", Json.mapper().valueToTree(report.load()));
      if (report.warmupLoad() != null) {
        json.set("warmupLoad", Json.mapper().valueToTree(report.warmupLoad()));
      }
      ArrayNode medians = json.putArray("medians");
      for (String c : rate.keySet()) {
        double ratio = rate.get(c) / baseline;
        double perId = state.get(c) / report.load().distinct();
        System.out.printf(
            Locale.ROOT,
            "%-13s %,12.0f %10.3f %12.1f %6.1f %12.1f %10.2f %14.1f %9.0f%n",
            c,
            rate.get(c),
            ratio,
            cpu.get(c),
            jit.get(c) * 100,
            brokerCpu.get(c),
            written.get(c),
            perId,
            rss.get(c) / (1 << 20));
        medians
            .addObject()
            .put("candidate", c)
            .put("eventsPerSecond", rate.get(c))
            .put("ratioToPassThrough", ratio)
            .put("appCpuMicrosPerEvent", cpu.get(c))
            .put("jitShareOfAppCpu", jit.get(c))
            .put("brokerCpuMicrosPerEvent", brokerCpu.get(c))
            .put("offsetsWrittenPerEvent", written.get(c))
            .put("stateBytesPerDistinctEvent", perId)
            .put("residentBytes", rss.get(c));
      }
      printByTopic(report);
      printTargets(rate, cpu, written);
      json.set("runs", Json.mapper().valueToTree(report.runs()));
      Path file = results.write(json);
      Path chart = results.chart();
      chart(report, rate, machine, chart);
      System.out.printf("%nresults: %s%nchart:   %s%n", file, chart);
    }

    /** Offsets written per input event, by topic: medians per candidate. */
    private static void printByTopic(TopologyBench.Report report) {
      Set<String> topics = new java.util.TreeSet<>();
      report.runs().forEach(r -> topics.addAll(r.offsetsWrittenByTopic().keySet()));
      System.out.printf(Locale.ROOT, "%noffsets written per input event, by topic (medians)%n");
      for (String topic : topics) {
        Map<String, Double> perTopic =
            report.median(r -> r.offsetsWrittenByTopic().getOrDefault(topic, 0.0));
        StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "  %-58s", topic));
        perTopic.forEach((c, v) -> line.append(String.format(Locale.ROOT, " %s %5.2f", c, v)));
        System.out.println(line);
      }
    }

    /** The figures issue 22 set targets for, beside them. */
    private static void printTargets(
        Map<String, Double> rate, Map<String, Double> cpu, Map<String, Double> written) {
      if (!rate.containsKey("turnstile")) {
        return;
      }
      System.out.printf(Locale.ROOT, "%nturnstile against its targets%n");
      if (rate.containsKey("pass-through")) {
        target(
            "events/s against the pass-through",
            rate.get("turnstile") / rate.get("pass-through"),
            ">=",
            0.35);
      }
      if (rate.containsKey("naive-dedup")) {
        target(
            "events/s against the naive dedup",
            rate.get("turnstile") / rate.get("naive-dedup"),
            ">=",
            0.5);
      }
      target("app CPU per event (µs)", cpu.get("turnstile"), "<=", 40);
      target("offsets written per event", written.get("turnstile"), "<=", 3.4);
    }

    private static void target(String what, Double value, String relation, double bound) {
      if (value == null || value.isNaN()) {
        return;
      }
      boolean met = ">=".equals(relation) ? value >= bound : value <= bound;
      System.out.printf(
          Locale.ROOT,
          "  %-36s %8.3f  target %s %s  %s%n",
          what,
          value,
          relation,
          bound,
          met ? "met" : "NOT met");
    }

    private void chart(
        TopologyBench.Report report,
        Map<String, Double> rate,
        Map<String, String> machine,
        Path png)
        throws IOException {
      DefaultCategoryDataset data = new DefaultCategoryDataset();
      for (TopologyBench.Run run : report.runs()) {
        data.addValue(run.eventsPerSecond(), "round " + run.round(), run.candidate());
      }
      rate.forEach((c, v) -> data.addValue(v, "median", c));
      JFreeChart chart =
          ChartFactory.createBarChart(
              String.format(
                  Locale.ROOT,
                  "Topology throughput, exactly_once_v2, %,d device events, real broker",
                  events),
              machine.get("cores")
                  + " cores, "
                  + machine.get("cpu")
                  + ", Kafka "
                  + machine.get("kafka"),
              "events/s",
              data,
              PlotOrientation.VERTICAL,
              true,
              false,
              false);
      chart.setBackgroundPaint(Color.WHITE);
      ChartUtils.saveChartAsPNG(png.toFile(), chart, 1000, 600);
    }
  }

  @Command(
      name = "cost",
      mixinStandardHelpOptions = true,
      description =
          "Per-event cost of the production topology in TopologyTestDriver (real RocksDB stores, no"
              + " broker) against a pass-through in the same run, fresh and after many remembered"
              + " events. Arguments: [remembered] [measured] [devices].")
  static final class CostCommand implements Callable<Integer> {
    @CommandLine.Parameters(arity = "0..3", description = "remembered measured devices")
    List<String> args = List.of();

    @Override
    public Integer call() throws Exception {
      TopologyCostBenchmark.main(args.toArray(String[]::new));
      return 0;
    }
  }

  static double median(double[] sorted) {
    double[] v = Arrays.copyOf(sorted, sorted.length);
    Arrays.sort(v);
    int n = v.length;
    return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  }

  @Command(
      name = "queries",
      mixinStandardHelpOptions = true,
      description =
          "Latency p50/p99 of the topology's queries (device sessions, merged document) answered"
              + " locally against forwarded to the key's owner, two instances on one broker, with"
              + " GET /health/live as the HTTP baseline.")
  static final class QueriesCommand implements Callable<Integer> {
    @Option(names = "--devices", description = "stations (default: ${DEFAULT-VALUE})")
    int devices = 1_000;

    @Option(names = "--rounds", description = "rounds over every key (default: ${DEFAULT-VALUE})")
    int rounds = 3;

    @Option(names = "--out", description = "results folder (default: ${DEFAULT-VALUE})")
    Path out = Path.of("docs", "bench");

    @Override
    public Integer call() throws Exception {
      QueriesBenchmark.run(devices, rounds, out);
      return 0;
    }
  }

  @Command(
      name = "restore",
      mixinStandardHelpOptions = true,
      description =
          "How long a topology process with an empty state directory takes to become ready when"
              + " its stores remember --events event ids, with and without"
              + " enable.transactional.statestores (in-process broker).")
  static final class RestoreCommand implements Callable<Integer> {
    @Option(names = "--events", description = "remembered events (default: ${DEFAULT-VALUE})")
    int events = 1_000_000;

    @Option(names = "--devices", description = "stations (default: ${DEFAULT-VALUE})")
    int devices = 1_000;

    @Override
    public Integer call() throws Exception {
      RestoreTimeBenchmark.main(new String[] {Integer.toString(events), Integer.toString(devices)});
      return 0;
    }
  }
}
