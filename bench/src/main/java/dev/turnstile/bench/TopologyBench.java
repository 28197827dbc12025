package dev.turnstile.bench;

import dev.turnstile.schemas.TopicCatalogue;
import dev.turnstile.topology.TopologyApplication;
import dev.turnstile.topology.config.TopologyConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.kafka.common.TopicPartition;

/**
 * The topology benchmark: one broker process, one input written once through the bridge's write
 * path, then every candidate in its own JVM on that same input, interleaved run by run, so each
 * figure has its baseline measured in the same sitting.
 *
 * <p>A run is measured from the candidate's start to the moment its consumer group has committed
 * the whole input and (for the topology) its internal hop ({@code merge-inputs.v1}) is drained:
 * events per second of wall time, CPU per event of the candidate's process and of the broker's,
 * offsets written per event (outputs, changelogs, transaction markers), and the state directory's
 * size.
 */
final class TopologyBench {

  /**
   * @param dataset the EV charging sessions CSV the load draws its session durations from
   */
  record Settings(
      Path dataset,
      long events,
      int devices,
      double resendFraction,
      boolean billing,
      List<Long> checkpoints,
      long window,
      double warmFraction,
      int runs,
      List<StreamsCandidate> candidates,
      Set<StreamsCandidate> profiled,
      String profileEvent,
      Map<String, String> topologyOverrides,
      Path workDir,
      Path outputDir) {}

  /**
   * One measured run of one candidate. Rates and CPU are measured once the candidate is warm: from
   * the moment it had processed {@code warmFraction} of its input to the end; what it wrote counts
   * over the whole run.
   *
   * @param events the input records the run processed
   * @param jitShare the share of the measured app CPU that the JIT compilers spent: what is left of
   *     the warm-up (a long-running process pays none of it)
   * @param offsetsWrittenByTopic offsets written per input record, by topic (records and, under
   *     exactly-once, each transaction's commit markers)
   */
  record Run(
      String candidate,
      int round,
      long events,
      double seconds,
      double eventsPerSecond,
      double appCpuMicrosPerEvent,
      double jitShare,
      double brokerCpuMicrosPerEvent,
      double offsetsWrittenPerEvent,
      Map<String, Double> offsetsWrittenByTopic,
      long stateBytes,
      long rssBytes) {}

  private static final Set<String> INPUTS =
      Set.of(
          TopicCatalogue.DEVICE_EVENTS_RAW.baseName(),
          TopicCatalogue.SERVICEBUS_MESSAGES_RAW.baseName());

  /**
   * The topics the topology feeds itself and reads again: every topic it reads but the raw inputs.
   * Derived from its source nodes: a topic it no longer reads would never be committed, and the
   * wait for it to drain would never end.
   */
  private static final List<String> HOPS =
      TopologyApplication.sourceTopics(
              TopologyConfig.of(Map.of("kafka.bootstrap.servers", "unused:9092")))
          .stream()
          .filter(t -> !INPUTS.contains(t))
          .toList();

  private final Settings settings;

  TopologyBench(Settings settings) {
    this.settings = settings;
  }

  Report run() throws IOException {
    Files.createDirectories(settings.workDir());
    try (Broker broker =
        Broker.start(settings.workDir().resolve("kafka"), settings.workDir().resolve("logs"))) {
      broker.create(TopicCatalogue.ALL, List.of(StreamsCandidate.OUTPUT));
      System.out.printf(
          "loading %,d device events (%,d devices, %.0f%% resent) through the bridge's write"
              + " path...%n",
          settings.events(), settings.devices(), settings.resendFraction() * 100);
      DeviceEventLoad.Loaded load =
          DeviceEventLoad.write(
              broker.bootstrap(),
              settings.dataset(),
              settings.events(),
              settings.devices(),
              settings.resendFraction(),
              20141118L);
      System.out.printf(
          "loaded %,d records (%,d distinct events, %,d sessions) in %.1f s%n",
          load.records(), load.distinct(), load.sessions(), load.seconds());
      long billed = 0;
      if (settings.billing()) {
        billed = BillingLoad.write(broker.bootstrap(), load.sessionRefs());
        System.out.printf(
            "loaded %,d billing messages through the bridge's Service Bus relay%n", billed);
      }
      System.out.println();
      List<Run> runs = new ArrayList<>();
      for (int round = 1; round <= settings.runs(); round++) {
        for (StreamsCandidate candidate : settings.candidates()) {
          resetOutputs(broker);
          // A pass-through reads device events only; the topology reads billing messages too.
          long inputs =
              candidate == StreamsCandidate.TURNSTILE ? load.records() + billed : load.records();
          Run run = measure(broker, candidate, round, inputs);
          runs.add(run);
          System.out.printf(
              "round %d %-13s %,10.0f events/s  %7.1f s  app CPU %7.1f µs/event (JIT %.0f%%)"
                  + "  broker CPU %6.1f µs/event  %5.2f offsets written/event  state %,d B  RSS"
                  + " %,d MiB%n",
              round,
              run.candidate(),
              run.eventsPerSecond(),
              run.seconds(),
              run.appCpuMicrosPerEvent(),
              run.jitShare() * 100,
              run.brokerCpuMicrosPerEvent(),
              run.offsetsWrittenPerEvent(),
              run.stateBytes(),
              run.rssBytes() >> 20);
        }
      }
      return new Report(settings, load, runs);
    }
  }

  private void resetOutputs(Broker broker) {
    broker.deleteAllBut(INPUTS);
    broker.create(
        TopicCatalogue.ALL.stream().filter(t -> !INPUTS.contains(t.baseName())).toList(),
        List.of(StreamsCandidate.OUTPUT));
  }

  private Run measure(Broker broker, StreamsCandidate candidate, int round, long events)
      throws IOException {
    String appId = "bench-" + candidate.label + "-" + round;
    Path stateDir = Files.createTempDirectory(settings.workDir(), appId + "-state");
    List<String> args = new ArrayList<>();
    args.add(candidate.label);
    args.add("kafka.bootstrap.servers=" + broker.bootstrap());
    args.add("topology.application-id=" + appId);
    args.add("topology.state-dir=" + stateDir);
    settings.topologyOverrides().forEach((k, v) -> args.add(k + "=" + v));
    List<String> jvm = new ArrayList<>(List.of("-Xmx1g"));
    Path profile = null;
    if (round == 1 && settings.profiled().contains(candidate)) {
      profile = settings.outputDir().resolve("profile-" + candidate.label + ".jfr");
      jvm.add(Profiler.agentOption(profile, settings.profileEvent()));
    }
    // A pass-through or the naive dedup reads device events only; the topology reads both inputs.
    Map<TopicPartition, Long> inputEnd =
        broker.endOffsets(
            candidate == StreamsCandidate.TURNSTILE
                ? INPUTS
                : Set.of(TopicCatalogue.DEVICE_EVENTS_RAW.baseName()));
    Map<TopicPartition, Long> before = writtenOffsets(broker);
    Sample start = new Sample(System.nanoTime(), 0, 0, broker.cpuNanos(), 0);
    try (ChildJvm child =
        ChildJvm.start(
            jvm,
            StreamsRunner.class.getName(),
            args,
            settings.workDir().resolve("logs").resolve(appId + ".log"))) {
      child.await("STARTED", Duration.ofMinutes(2));
      List<Sample> samples = new ArrayList<>();
      awaitDrained(
          broker,
          appId,
          inputEnd,
          candidate == StreamsCandidate.TURNSTILE,
          processed ->
              samples.add(
                  new Sample(
                      System.nanoTime(),
                      child.cpuNanos(),
                      child.compilerCpuNanos(),
                      broker.cpuNanos(),
                      processed)));
      if (!settings.checkpoints().isEmpty()) {
        printCostAtCheckpoints(candidate, samples);
      }
      Sample end =
          new Sample(
              System.nanoTime(),
              child.cpuNanos(),
              child.compilerCpuNanos(),
              broker.cpuNanos(),
              events);
      Sample warm = firstAtLeast(samples, (long) (settings.warmFraction() * events));
      if (warm == null || warm.processed() >= end.processed()) {
        warm = start;
      }
      long measured = end.processed() - warm.processed();
      double seconds = (end.nanos() - warm.nanos()) / 1e9;
      long rss = child.rssBytes();
      Map<TopicPartition, Long> after = writtenOffsets(broker);
      Map<String, Double> byTopic = new java.util.TreeMap<>();
      after.forEach(
          (tp, offset) ->
              byTopic.merge(
                  // Internal topics carry the round's application id: name them alike in every
                  // round.
                  tp.topic().replace(appId + "-", "<application.id>-"),
                  (double) (offset - before.getOrDefault(tp, 0L)) / events,
                  Double::sum));
      byTopic.values().removeIf(perEvent -> perEvent == 0);
      double written = byTopic.values().stream().mapToDouble(Double::doubleValue).sum();
      long stateBytes = size(stateDir);
      child.close();
      double appCpuPerEvent = (end.cpuNanos() - warm.cpuNanos()) / 1e3 / measured;
      double jitShare =
          (double) (end.jitNanos() - warm.jitNanos()) / (end.cpuNanos() - warm.cpuNanos());
      if (profile != null) {
        Path collapsed = Profiler.render(profile, candidate.label, settings.outputDir());
        StageCosts.print(collapsed, appCpuPerEvent);
      }
      return new Run(
          candidate.label,
          round,
          events,
          seconds,
          measured / seconds,
          appCpuPerEvent,
          jitShare,
          (end.brokerCpuNanos() - warm.brokerCpuNanos()) / 1e3 / measured,
          written,
          byTopic,
          stateBytes,
          rss);
    } finally {
      deleteRecursively(stateDir);
    }
  }

  private Map<TopicPartition, Long> writtenOffsets(Broker broker) {
    List<String> written =
        broker.topics().stream().filter(t -> !INPUTS.contains(t) && !t.startsWith("__")).toList();
    return broker.endOffsets(written);
  }

  /**
   * Until the group has committed the whole input and, for the topology, the hops it feeds itself
   * are drained: committed within one offset of the end (the last transaction's commit marker takes
   * an offset the group never commits past) and unchanged for a second.
   */
  private static void awaitDrained(
      Broker broker,
      String group,
      Map<TopicPartition, Long> inputEnd,
      boolean hops,
      java.util.function.LongConsumer progress) {
    long deadline = System.nanoTime() + Duration.ofHours(6).toNanos();
    Map<TopicPartition, Long> lastHopEnd = Map.of();
    int stable = 0;
    while (System.nanoTime() < deadline) {
      Broker.pause();
      Map<TopicPartition, Long> committed = broker.committed(group);
      progress.accept(
          inputEnd.keySet().stream().mapToLong(tp -> committed.getOrDefault(tp, 0L)).sum());
      boolean inputDone =
          inputEnd.entrySet().stream()
              .allMatch(e -> committed.getOrDefault(e.getKey(), 0L) >= e.getValue());
      if (!inputDone) {
        continue;
      }
      if (!hops) {
        return;
      }
      Map<TopicPartition, Long> hopEnd = broker.endOffsets(HOPS);
      boolean hopsDone =
          hopEnd.entrySet().stream()
              .allMatch(e -> committed.getOrDefault(e.getKey(), 0L) >= e.getValue() - 1);
      stable = hopsDone && hopEnd.equals(lastHopEnd) ? stable + 1 : 0;
      lastHopEnd = hopEnd;
      if (stable >= 5) {
        return;
      }
    }
    throw new IllegalStateException(group + " did not drain its input in time");
  }

  /**
   * When the harness looked: wall time, the candidate's CPU and its JIT compilers' share of it, the
   * broker's CPU, input records committed.
   */
  private record Sample(
      long nanos, long cpuNanos, long jitNanos, long brokerCpuNanos, long processed) {}

  /**
   * Per-event cost in a window of {@link Settings#window()} input records starting at each
   * checkpoint (records already processed, hence ids already remembered): shows whether the cost
   * grows with the state, within one run on one input.
   */
  private void printCostAtCheckpoints(StreamsCandidate candidate, List<Sample> samples) {
    System.out.printf(
        "  %s: cost by records already processed (windows of %,d records)%n",
        candidate.label, settings.window());
    for (long checkpoint : settings.checkpoints()) {
      Sample from = firstAtLeast(samples, checkpoint);
      Sample to = firstAtLeast(samples, checkpoint + settings.window());
      if (from == null || to == null || to.processed() == from.processed()) {
        System.out.printf("    %,12d  (not reached)%n", checkpoint);
        continue;
      }
      long records = to.processed() - from.processed();
      double seconds = (to.nanos() - from.nanos()) / 1e9;
      System.out.printf(
          "    %,12d  %,10.0f records/s  %7.1f µs CPU/record (JIT %.0f%%)%n",
          checkpoint,
          records / seconds,
          (to.cpuNanos() - from.cpuNanos()) / 1e3 / records,
          100.0 * (to.jitNanos() - from.jitNanos()) / (to.cpuNanos() - from.cpuNanos()));
    }
  }

  private static Sample firstAtLeast(List<Sample> samples, long processed) {
    return samples.stream().filter(s -> s.processed() >= processed).findFirst().orElse(null);
  }

  static long size(Path dir) {
    try (Stream<Path> files = Files.walk(dir)) {
      return files.filter(Files::isRegularFile).mapToLong(p -> p.toFile().length()).sum();
    } catch (IOException e) {
      return -1;
    }
  }

  static void deleteRecursively(Path dir) {
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The figures of a whole benchmark. */
  record Report(Settings settings, DeviceEventLoad.Loaded load, List<Run> runs) {

    /** Median of a figure per candidate, in the candidates' order. */
    Map<String, Double> median(java.util.function.ToDoubleFunction<Run> figure) {
      Map<String, Double> medians = new LinkedHashMap<>();
      for (StreamsCandidate c : settings.candidates()) {
        double[] values =
            runs.stream()
                .filter(r -> r.candidate().equals(c.label))
                .mapToDouble(figure)
                .sorted()
                .toArray();
        medians.put(c.label, values.length == 0 ? Double.NaN : Bench.median(values));
      }
      return medians;
    }
  }
}
