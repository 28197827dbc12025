package dev.turnstile.bench;

import dev.turnstile.schemas.TopicCatalogue;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.ToDoubleFunction;
import java.util.stream.Collectors;
import org.apache.kafka.common.TopicPartition;

/**
 * The bridge benchmark: one broker process; in each round the Turnstile bridge in its own JVM under
 * HTTP load from the harness (single-event POSTs at each connection count, batches, then a fixed
 * rate at half of the round's saturation), the Strimzi HTTP Bridge in its own JVM under the same
 * single-event load, and a bare Kafka producer in its own JVM as the baseline, so every ratio
 * compares figures from the same sitting.
 *
 * <p>Each run uses event ids of its own, so every 2xx is a write: the records the run added to its
 * topic must equal its 2xx answers times the events per request ({@link Run#recordsMatch}).
 */
final class BridgeBench {

  static final String STRIMZI_TOPIC = "bench-strimzi.v1";
  static final String PRODUCER_TOPIC = "bench-raw-producer.v1";
  private static final String RAW = TopicCatalogue.DEVICE_EVENTS_RAW.baseName();

  record Settings(
      int runs,
      List<Integer> connections,
      List<Integer> batchSizes,
      int batchConnections,
      Duration warmup,
      Duration duration,
      int devices,
      int clientThreads,
      Path strimziHome,
      String strimziJava,
      Map<String, String> bridgeOverrides,
      Duration jvmWarmup,
      boolean profile,
      Path outputDir,
      Path workDir) {}

  /**
   * One measured run.
   *
   * @param offeredPerSecond requests per second offered by a fixed-rate run; 0 for a closed loop
   * @param recordsInKafka records the run added to its topic
   * @param blockedThreadWarnings Vert.x blocked-thread warnings in the server's log (Turnstile)
   * @param serverJitShare the share of the server's CPU in this run that its JIT compilers spent
   */
  record Run(
      String candidate,
      int round,
      int connections,
      int eventsPerRequest,
      double offeredPerSecond,
      double requestsPerSecond,
      double recordsPerSecond,
      double p50Millis,
      double p99Millis,
      double p999Millis,
      long answered2xx,
      long answeredOther,
      long failed,
      long recordsInKafka,
      boolean recordsMatch,
      double serverCpuMicrosPerRecord,
      double brokerCpuMicrosPerRecord,
      double clientCpuMicrosPerRecord,
      long blockedThreadWarnings,
      double serverJitShare) {}

  record Report(Settings settings, List<Run> runs) {

    /** Median of a figure per candidate, in the order the candidates first ran. */
    Map<String, Double> median(ToDoubleFunction<Run> figure) {
      Map<String, Double> medians = new LinkedHashMap<>();
      for (String c : runs.stream().map(Run::candidate).distinct().toList()) {
        medians.put(
            c,
            Bench.median(
                runs.stream().filter(r -> r.candidate().equals(c)).mapToDouble(figure).toArray()));
      }
      return medians;
    }
  }

  private final Settings settings;
  private final BenchCredentials credentials;
  private final BridgeRequests requests;

  BridgeBench(Settings settings) {
    this.settings = settings;
    this.credentials = BenchCredentials.issue(settings.workDir());
    this.requests =
        new BridgeRequests(settings.devices(), STRIMZI_TOPIC, credentials.authorization());
  }

  Report run() throws IOException {
    Files.createDirectories(settings.workDir());
    List<Run> runs = new ArrayList<>();
    try (Broker broker =
            Broker.start(settings.workDir().resolve("kafka"), settings.workDir().resolve("logs"));
        HttpLoad load = new HttpLoad(settings.clientThreads())) {
      for (int round = 1; round <= settings.runs(); round++) {
        broker.deleteAllBut(Set.of());
        broker.create(TopicCatalogue.ALL, List.of(STRIMZI_TOPIC, PRODUCER_TOPIC));
        runs.addAll(turnstile(broker, load, round));
        if (settings.strimziHome() != null) {
          runs.addAll(strimzi(broker, load, round));
        }
        runs.add(rawProducer(broker, round));
      }
    }
    return new Report(settings, runs);
  }

  private List<Run> turnstile(Broker broker, HttpLoad load, int round) {
    List<String> args = new ArrayList<>();
    args.add("kafka.bootstrap.servers=" + broker.bootstrap());
    args.add("bridge.http.host=127.0.0.1");
    args.add("bridge.http.port=0");
    args.add(credentials.bridgeArgument());
    settings.bridgeOverrides().forEach((k, v) -> args.add(k + "=" + v));
    Path log = settings.workDir().resolve("logs").resolve("turnstile-bridge-" + round + ".log");
    List<Run> runs = new ArrayList<>();
    List<String> jvm = new ArrayList<>(List.of("-Xmx1g"));
    Path profile = null;
    if (settings.profile() && round == 1) {
      // Kept beside the flame graph: jfr-converter --from/--to cuts it to one run.
      profile = settings.outputDir().resolve("profile-bridge.jfr");
      jvm.add(Profiler.agentOption(profile, "itimer"));
    }
    try (ChildJvm bridge = ChildJvm.start(jvm, BridgeRunner.class.getName(), args, log)) {
      int port = Integer.parseInt(bridge.await("LISTENING ", Duration.ofMinutes(2)));
      Target target = new Target(port, bridge::cpuNanos, bridge::compilerCpuNanos, log, RAW);
      List<Function<String, HttpLoad.Requests>> shapes = new ArrayList<>();
      shapes.add(requests::single);
      settings.batchSizes().forEach(size -> shapes.add(prefix -> requests.batch(prefix, size)));
      warmUp(load, port, shapes);
      double saturation = 0;
      for (int connections : settings.connections()) {
        Run run =
            measure(
                broker,
                target,
                new Shape("turnstile-single-c" + connections, connections, 1, 0, requests::single),
                round,
                load);
        runs.add(run);
        saturation = Math.max(saturation, run.requestsPerSecond());
      }
      for (int size : settings.batchSizes()) {
        int connections = settings.batchConnections();
        runs.add(
            measure(
                broker,
                target,
                new Shape(
                    "turnstile-batch" + size + "-c" + connections,
                    connections,
                    size,
                    0,
                    prefix -> requests.batch(prefix, size)),
                round,
                load));
      }
      int most = settings.connections().stream().mapToInt(Integer::intValue).max().orElse(64);
      runs.add(
          measure(
              broker,
              target,
              new Shape("turnstile-half-saturation", most, 1, saturation / 2, requests::single),
              round,
              load));
    }
    if (profile != null) {
      Profiler.render(profile, "bridge", settings.outputDir());
    }
    return runs;
  }

  /**
   * Load before the first measured run of a new JVM, not recorded: the JIT compiles the request
   * paths here, not in the measured windows. Every shape the runs send (single events, each batch
   * size) gets an equal part of {@code --jvm-warmup}, so a batch run does not pay for compiling the
   * batch path.
   */
  private void warmUp(HttpLoad load, int port, List<Function<String, HttpLoad.Requests>> shapes) {
    if (settings.jvmWarmup().isZero()) {
      return;
    }
    Duration each = settings.jvmWarmup().dividedBy(shapes.size());
    for (int i = 0; i < shapes.size(); i++) {
      load.closedLoop(port, 64, Duration.ZERO, each, shapes.get(i).apply("warm-up-" + i + "-"));
    }
  }

  private List<Run> strimzi(Broker broker, HttpLoad load, int round) {
    List<Run> runs = new ArrayList<>();
    Path dir = settings.workDir().resolve("strimzi-" + round);
    try (StrimziBridge strimzi =
        StrimziBridge.start(
            settings.strimziHome(), settings.strimziJava(), broker.bootstrap(), dir)) {
      Target target =
          new Target(
              strimzi.port(), strimzi::cpuNanos, strimzi::compilerCpuNanos, null, STRIMZI_TOPIC);
      warmUp(load, strimzi.port(), List.of(requests::strimzi));
      for (int connections : settings.connections()) {
        runs.add(
            measure(
                broker,
                target,
                new Shape("strimzi-single-c" + connections, connections, 1, 0, requests::strimzi),
                round,
                load));
      }
    }
    return runs;
  }

  private Run rawProducer(Broker broker, int round) {
    Map<TopicPartition, Long> before = broker.endOffsets(List.of(PRODUCER_TOPIC));
    long brokerCpu = broker.cpuNanos();
    Path log = settings.workDir().resolve("logs").resolve("raw-producer-" + round + ".log");
    List<String> args =
        new ArrayList<>(
            List.of(
                broker.bootstrap(),
                PRODUCER_TOPIC,
                Integer.toString(settings.devices()),
                "10000",
                Long.toString(settings.warmup().toMillis()),
                Long.toString(settings.duration().toMillis())));
    ProducerRunner.config(settings.bridgeOverrides()).forEach((k, v) -> args.add(k + "=" + v));
    try (ChildJvm producer =
        ChildJvm.start(List.of("-Xmx1g"), ProducerRunner.class.getName(), args, log)) {
      String[] result =
          producer
              .await("RESULT ", settings.warmup().plus(settings.duration()).plusMinutes(2))
              .split(" ");
      long cpu = producer.cpuNanos();
      long measured = Long.parseLong(result[0]);
      double seconds = Double.parseDouble(result[1]);
      long acked = Long.parseLong(result[2]);
      long failed = Long.parseLong(result[3]);
      long written = added(broker, PRODUCER_TOPIC, before);
      return print(
          new Run(
              "raw-producer",
              round,
              0,
              1,
              0,
              measured / seconds,
              measured / seconds,
              Double.NaN,
              Double.NaN,
              Double.NaN,
              acked,
              0,
              failed,
              written,
              written == acked,
              cpu / 1e3 / Math.max(1, written),
              (broker.cpuNanos() - brokerCpu) / 1e3 / Math.max(1, written),
              0,
              0,
              // Its CPU is read as it exits, over its whole life: no share of a run to give.
              Double.NaN));
    }
  }

  /**
   * Where a run sends: the port, the serving process's CPU and its JIT compilers' part of it, its
   * log (ours only), its topic.
   */
  private record Target(
      int port, LongSupplier cpuNanos, LongSupplier jitNanos, Path log, String topic) {}

  /**
   * What a run sends.
   *
   * @param rate requests per second on a schedule; 0 for a closed loop
   * @param requests the run's requests, given the run's own event id prefix
   */
  private record Shape(
      String name,
      int connections,
      int eventsPerRequest,
      double rate,
      Function<String, HttpLoad.Requests> requests) {}

  private Run measure(Broker broker, Target target, Shape shape, int round, HttpLoad load) {
    Map<TopicPartition, Long> before = broker.endOffsets(List.of(target.topic()));
    long serverCpu = target.cpuNanos().getAsLong();
    long serverJit = target.jitNanos().getAsLong();
    long brokerCpu = broker.cpuNanos();
    long clientCpu = ProcessCpu.nanos(ProcessHandle.current().pid());
    long blockedBefore = blockedWarnings(target.log());
    HttpLoad.Requests generator = shape.requests().apply("r" + round + "-" + shape.name() + "-");
    HttpLoad.Result result =
        shape.rate() > 0
            ? load.fixedRate(
                target.port(),
                shape.connections(),
                shape.rate(),
                settings.warmup(),
                settings.duration(),
                generator)
            : load.closedLoop(
                target.port(),
                shape.connections(),
                settings.warmup(),
                settings.duration(),
                generator);
    long written = added(broker, target.topic(), before);
    long records = Math.max(1, written);
    long serverCpuUsed = target.cpuNanos().getAsLong() - serverCpu;
    return print(
        new Run(
            shape.name(),
            round,
            shape.connections(),
            shape.eventsPerRequest(),
            shape.rate(),
            result.requestsPerSecond(),
            result.requestsPerSecond() * shape.eventsPerRequest(),
            result.percentileMillis(50),
            result.percentileMillis(99),
            result.percentileMillis(99.9),
            result.answered2xx(),
            result.answeredOther(),
            result.failed(),
            written,
            written == result.answered2xx() * shape.eventsPerRequest(),
            serverCpuUsed / 1e3 / records,
            (broker.cpuNanos() - brokerCpu) / 1e3 / records,
            (ProcessCpu.nanos(ProcessHandle.current().pid()) - clientCpu) / 1e3 / records,
            blockedWarnings(target.log()) - blockedBefore,
            (double) (target.jitNanos().getAsLong() - serverJit) / serverCpuUsed));
  }

  /** Records added to {@code topic} since {@code before}, once the broker's end offsets settle. */
  private static long added(Broker broker, String topic, Map<TopicPartition, Long> before) {
    Map<TopicPartition, Long> after = broker.endOffsets(List.of(topic));
    return after.entrySet().stream()
        .mapToLong(e -> e.getValue() - before.getOrDefault(e.getKey(), 0L))
        .sum();
  }

  private static long blockedWarnings(Path log) {
    if (log == null || !Files.exists(log)) {
      return 0;
    }
    try (var lines = Files.lines(log)) {
      return lines.filter(l -> l.contains("has been blocked for")).count();
    } catch (IOException | java.io.UncheckedIOException e) {
      return -1;
    }
  }

  private static Run print(Run run) {
    System.out.printf(
        java.util.Locale.ROOT,
        "round %d %-28s %,10.0f req/s %,10.0f records/s  p50 %6.1f ms  p99 %7.1f ms  server"
            + " %6.1f µs/rec (JIT %.0f%%)  broker %6.1f µs/rec  Kafka %s (%,d records, %,d 2xx, %d other, %d"
            + " failed)%s%n",
        run.round(),
        run.candidate(),
        run.requestsPerSecond(),
        run.recordsPerSecond(),
        run.p50Millis(),
        run.p99Millis(),
        run.serverCpuMicrosPerRecord(),
        run.serverJitShare() * 100,
        run.brokerCpuMicrosPerRecord(),
        run.recordsMatch() ? "= 2xx" : "!= 2xx",
        run.recordsInKafka(),
        run.answered2xx(),
        run.answeredOther(),
        run.failed(),
        run.offeredPerSecond() > 0
            ? String.format(java.util.Locale.ROOT, "  offered %,.0f req/s", run.offeredPerSecond())
            : "");
    return run;
  }

  static String describe(Map<String, Double> medians) {
    return medians.entrySet().stream()
        .map(e -> e.getKey() + "=" + Math.round(e.getValue()))
        .collect(Collectors.joining(", "));
  }
}
