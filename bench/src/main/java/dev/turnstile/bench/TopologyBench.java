package dev.turnstile.bench;

import dev.turnstile.schemas.TopicCatalogue;
import dev.turnstile.topology.TopologyApplication;
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
 *
 * <p>With {@code warmupEvents} above 0, each candidate's JVM first runs <em>warm-up passes</em>:
 * the same candidate over a warm-up load of the same shape (written once, under the topic prefix
 * {@value #WARMUP_PREFIX}, billing included when on), with an application id, state directory and
 * topics of its own, until it has processed all of it; the JVM closes that client and starts
 * another pass (a new application id, the warm-up outputs emptied) until {@code warmupSeconds} have
 * passed since the JVM started, and only then starts the measured pass. A JVM's C2 compiler works
 * through a long queue behind the code that made methods hot: on two cores a pass-through over
 * 300,000 events (a few seconds) leaves most of it to the measured pass, whatever the size of one
 * pass. Nothing of the warm-up (time, CPU, records written) counts in a measured figure: the
 * measured pass is counted from the moment it is started, and what it wrote only on its own topics.
 */
final class TopologyBench {

  /**
   * @param dataset the EV charging sessions CSV the load draws its session durations from
   */
  record Settings(
      Path dataset,
      long events,
      long warmupEvents,
      long warmupSeconds,
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
   * One measured run of one candidate. Rates and CPU are measured from the moment its measured pass
   * had processed {@code warmFraction} of its input to the end (after the warm-up passes, if any);
   * what it wrote counts over the whole measured pass.
   *
   * @param warmupPasses the warm-up passes before the measured pass (0: none)
   * @param warmupEvents the input records each warm-up pass processed
   * @param warmupSeconds the warm-up's wall time, from the JVM's start until its last pass closed
   * @param warmupJitShare the share of the warm-up's CPU that the JIT compilers spent
   * @param warmupLastPassJitShare the same share in its last pass alone: how warm the JVM was
   * @param events the input records the run processed
   * @param jitShare the share of the measured app CPU that the JIT compilers spent: what is left of
   *     the warm-up (a long-running process pays none of it)
   * @param offsetsWrittenByTopic offsets written per input record, by topic (records and, under
   *     exactly-once, each transaction's commit markers)
   */
  record Run(
      String candidate,
      int round,
      int warmupPasses,
      long warmupEvents,
      double warmupSeconds,
      double warmupJitShare,
      double warmupLastPassJitShare,
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
      TopologyApplication.sourceTopics().stream().filter(t -> !INPUTS.contains(t)).toList();

  /** The topic prefix of the warm-up passes: their inputs, outputs and hops. */
  static final String WARMUP_PREFIX = "warmup.";

  /**
   * What the warm-up passes' application ids start with, hence their internal topics (changelogs).
   */
  private static final String WARMUP_APPLICATION = "bench-warmup-";

  private static final Set<String> WARMUP_INPUTS =
      INPUTS.stream().map(t -> WARMUP_PREFIX + t).collect(java.util.stream.Collectors.toSet());

  /** The warm-up load's seed: the measured load's shape, not its ids. */
  private static final long WARMUP_SEED = 19700101L;

  private final Settings settings;

  TopologyBench(Settings settings) {
    this.settings = settings;
  }

  Report run() throws IOException {
    Files.createDirectories(settings.workDir());
    try (Broker broker =
        Broker.start(settings.workDir().resolve("kafka"), settings.workDir().resolve("logs"))) {
      broker.create(TopicCatalogue.ALL, List.of(StreamsCandidate.OUTPUT));
      if (warmingUp()) {
        broker.create(
            WARMUP_PREFIX, TopicCatalogue.ALL, List.of(WARMUP_PREFIX + StreamsCandidate.OUTPUT));
      }
      System.out.printf(
          "loading %,d device events (%,d devices, %.0f%% resent) through the bridge's write"
              + " path...%n",
          settings.events(), settings.devices(), settings.resendFraction() * 100);
      DeviceEventLoad.Loaded load =
          DeviceEventLoad.write(
              broker.bootstrap(),
              TopicCatalogue.DEVICE_EVENTS_RAW.baseName(),
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
        billed =
            BillingLoad.write(
                broker.bootstrap(),
                TopicCatalogue.SERVICEBUS_MESSAGES_RAW.baseName(),
                load.sessionRefs());
        System.out.printf(
            "loaded %,d billing messages through the bridge's Service Bus relay%n", billed);
      }
      DeviceEventLoad.Loaded warmupLoad = null;
      if (warmingUp()) {
        warmupLoad =
            DeviceEventLoad.write(
                broker.bootstrap(),
                WARMUP_PREFIX + TopicCatalogue.DEVICE_EVENTS_RAW.baseName(),
                settings.dataset(),
                settings.warmupEvents(),
                settings.devices(),
                settings.resendFraction(),
                WARMUP_SEED);
        long warmupBilled =
            settings.billing()
                ? BillingLoad.write(
                    broker.bootstrap(),
                    WARMUP_PREFIX + TopicCatalogue.SERVICEBUS_MESSAGES_RAW.baseName(),
                    warmupLoad.sessionRefs())
                : 0;
        System.out.printf(
            "loaded the warm-up passes' own input: %,d device events%s, same shape, under %s%n",
            warmupLoad.records(),
            settings.billing() ? String.format(" and %,d billing messages", warmupBilled) : "",
            WARMUP_PREFIX);
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
      return new Report(settings, load, warmupLoad, runs);
    }
  }

  private boolean warmingUp() {
    return settings.warmupEvents() > 0;
  }

  /** Deletes what the last candidate wrote (its warm-up pass's too), keeping both loads. */
  private void resetOutputs(Broker broker) {
    Set<String> inputs = new java.util.HashSet<>(INPUTS);
    inputs.addAll(WARMUP_INPUTS);
    broker.deleteAllBut(inputs);
    List<dev.turnstile.schemas.Topic> outputs =
        TopicCatalogue.ALL.stream().filter(t -> !INPUTS.contains(t.baseName())).toList();
    broker.create(outputs, List.of(StreamsCandidate.OUTPUT));
    if (warmingUp()) {
      broker.create(WARMUP_PREFIX, outputs, List.of(WARMUP_PREFIX + StreamsCandidate.OUTPUT));
    }
  }

  /** The raw topics {@code candidate} reads, under {@code prefix}. */
  private static Set<String> inputs(StreamsCandidate candidate, String prefix) {
    // A pass-through or the naive dedup reads device events only; the topology reads both inputs.
    return (candidate == StreamsCandidate.TURNSTILE
            ? INPUTS
            : Set.of(TopicCatalogue.DEVICE_EVENTS_RAW.baseName()))
        .stream().map(t -> prefix + t).collect(java.util.stream.Collectors.toSet());
  }

  /** The hops {@code candidate} feeds itself and must drain, under {@code prefix}. */
  private static List<String> hops(StreamsCandidate candidate, String prefix) {
    return candidate == StreamsCandidate.TURNSTILE
        ? HOPS.stream().map(t -> prefix + t).toList()
        : List.of();
  }

  private Run measure(Broker broker, StreamsCandidate candidate, int round, long events)
      throws IOException {
    String appId = "bench-" + candidate.label + "-" + round;
    String warmupAppId = WARMUP_APPLICATION + candidate.label + "-" + round;
    Path stateDir = Files.createTempDirectory(settings.workDir(), appId + "-state");
    Path warmupStateDir =
        warmingUp() ? Files.createTempDirectory(settings.workDir(), warmupAppId + "-state") : null;
    List<String> args = new ArrayList<>();
    args.add(candidate.label);
    args.add("kafka.bootstrap.servers=" + broker.bootstrap());
    args.add("topology.application-id=" + appId);
    args.add("topology.state-dir=" + stateDir);
    settings.topologyOverrides().forEach((k, v) -> args.add(k + "=" + v));
    if (warmingUp()) {
      // Same candidate and overrides; nothing shared with the measured pass: not its group,
      // offsets, transactional ids, changelogs, state directory or topics (each pass gets an
      // application id of its own from warmUp).
      args.add(StreamsRunner.WARMUP + "topology.state-dir=" + warmupStateDir);
      args.add(StreamsRunner.WARMUP + "topic.prefix=" + WARMUP_PREFIX);
    }
    List<String> jvm = new ArrayList<>(List.of("-Xmx1g"));
    Path profile = null;
    if (round == 1 && settings.profiled().contains(candidate)) {
      profile = settings.outputDir().resolve("profile-" + candidate.label + ".jfr");
      if (warmingUp()) {
        // Recorded from the measured pass's start: the warm-up is not in the profile.
        jvm.addAll(Profiler.deferredAgentOptions(profile, settings.profileEvent()));
      } else {
        jvm.add(Profiler.agentOption(profile, settings.profileEvent()));
      }
    }
    Map<TopicPartition, Long> inputEnd = broker.endOffsets(inputs(candidate, ""));
    Map<TopicPartition, Long> before = writtenOffsets(broker);
    Sample start = new Sample(System.nanoTime(), 0, 0, broker.cpuNanos(), 0);
    try (ChildJvm child =
        ChildJvm.start(
            jvm,
            StreamsRunner.class.getName(),
            args,
            settings.workDir().resolve("logs").resolve(appId + ".log"))) {
      WarmedUp warmedUp = new WarmedUp(0, 0, 0, 0, 0, 0, 0);
      if (warmingUp()) {
        warmedUp = warmUp(broker, child, candidate, warmupAppId, start.nanos());
        System.out.printf(
            "round %d %-13s warm-up: %d pass%s over %,d events in %.1f s (JVM start to the last"
                + " closed), JIT %.0f%% of its CPU; last pass %.1f s, JIT %.0f%%; compilers idle"
                + " %.1f s later; none of it counted below%n",
            round,
            candidate.label,
            warmedUp.passes(),
            warmedUp.passes() == 1 ? "" : "es",
            warmedUp.events(),
            warmedUp.seconds(),
            warmedUp.jitShare() * 100,
            warmedUp.lastPassSeconds(),
            warmedUp.lastPassJitShare() * 100,
            warmedUp.settleSeconds());
        // The measured pass starts now: what came before counts in no figure.
        before = writtenOffsets(broker);
        start =
            new Sample(
                System.nanoTime(),
                child.cpuNanos(),
                child.compilerCpuNanos(),
                broker.cpuNanos(),
                0);
        child.send("start");
      }
      child.await("STARTED", Duration.ofMinutes(2));
      List<Sample> samples = new ArrayList<>();
      awaitDrained(
          broker,
          appId,
          inputEnd,
          hops(candidate, ""),
          read ->
              samples.add(
                  new Sample(
                      System.nanoTime(),
                      child.cpuNanos(),
                      child.compilerCpuNanos(),
                      broker.cpuNanos(),
                      inputEnd.keySet().stream()
                          .map(TopicPartition::topic)
                          .distinct()
                          .mapToLong(t -> read.getOrDefault(t, 0L))
                          .sum(),
                      read)));
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
      Map<TopicPartition, Long> since = before;
      after.forEach(
          (tp, offset) ->
              byTopic.merge(
                  // Internal topics carry the round's application id: name them alike in every
                  // round.
                  tp.topic().replace(appId + "-", "<application.id>-"),
                  (double) (offset - since.getOrDefault(tp, 0L)) / events,
                  Double::sum));
      byTopic.values().removeIf(perEvent -> perEvent == 0);
      double written = byTopic.values().stream().mapToDouble(Double::doubleValue).sum();
      long stateBytes = size(stateDir);
      System.out.println("  state by store: " + sizeByStore(stateDir));
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
          warmedUp.passes(),
          warmedUp.events(),
          warmedUp.seconds(),
          warmedUp.jitShare(),
          warmedUp.lastPassJitShare(),
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
      if (warmupStateDir != null) {
        deleteRecursively(warmupStateDir);
      }
    }
  }

  /**
   * What the warm-up did: its passes, the input records each processed, its wall time from the
   * JVM's start until the last pass closed, the share of the child's CPU its compilers took by then
   * and in the last pass alone (from its start to drained), that pass's wall time, and how long the
   * compilers then took to fall idle.
   */
  private record WarmedUp(
      int passes,
      long events,
      double seconds,
      double jitShare,
      double lastPassSeconds,
      double lastPassJitShare,
      double settleSeconds) {}

  /**
   * Warm-up passes in the child until {@code warmupSeconds} have passed since {@code began} (at
   * least one): each lets a new client process the whole warm-up input (for the topology, drain its
   * hops too) under an application id of its own, then has the child close it; then waits until the
   * child's JIT compilers are idle, so that no compilation queued by the warm-up lands in the
   * measured window.
   */
  private WarmedUp warmUp(
      Broker broker, ChildJvm child, StreamsCandidate candidate, String application, long began) {
    Map<TopicPartition, Long> end = broker.endOffsets(inputs(candidate, WARMUP_PREFIX));
    long events = end.values().stream().mapToLong(Long::longValue).sum();
    long until = began + Duration.ofSeconds(settings.warmupSeconds()).toNanos();
    int passes = 0;
    double lastSeconds;
    double lastJitShare;
    do {
      if (passes > 0) {
        resetWarmupOutputs(broker);
      }
      passes++;
      String group = application + "-p" + passes;
      long passBegan = System.nanoTime();
      long cpu = child.cpuNanos();
      long jit = child.compilerCpuNanos();
      child.send("warmup " + group);
      child.await("WARMUP-STARTED", Duration.ofMinutes(2));
      awaitDrained(broker, group, end, hops(candidate, WARMUP_PREFIX), read -> {});
      lastSeconds = (System.nanoTime() - passBegan) / 1e9;
      lastJitShare = (double) (child.compilerCpuNanos() - jit) / (child.cpuNanos() - cpu);
      child.send("close");
      child.await("WARMED", Duration.ofMinutes(2));
    } while (System.nanoTime() < until);
    double seconds = (System.nanoTime() - began) / 1e9;
    double jitShare = (double) child.compilerCpuNanos() / child.cpuNanos();
    long settling = System.nanoTime();
    awaitIdleCompilers(child);
    return new WarmedUp(
        passes,
        events,
        seconds,
        jitShare,
        lastSeconds,
        lastJitShare,
        (System.nanoTime() - settling) / 1e9);
  }

  /** Empties the warm-up outputs, hops and changelogs for the next pass; keeps its input. */
  private static void resetWarmupOutputs(Broker broker) {
    broker.delete(
        t ->
            t.startsWith(WARMUP_PREFIX) && !WARMUP_INPUTS.contains(t)
                || t.startsWith(WARMUP_APPLICATION));
    broker.create(
        WARMUP_PREFIX,
        TopicCatalogue.ALL.stream().filter(t -> !INPUTS.contains(t.baseName())).toList(),
        List.of(WARMUP_PREFIX + StreamsCandidate.OUTPUT));
  }

  /** Compiler CPU per second under which the compilers count as idle: one {@code /proc} tick. */
  private static final long IDLE_COMPILER_NANOS = 10_000_000;

  /**
   * Until the child's compiler threads spent at most {@link #IDLE_COMPILER_NANOS} over the last
   * second (at most a minute).
   */
  private static void awaitIdleCompilers(ChildJvm child) {
    long deadline = System.nanoTime() + Duration.ofMinutes(1).toNanos();
    java.util.ArrayDeque<Long> lastSecond = new java.util.ArrayDeque<>();
    while (true) {
      long now = child.compilerCpuNanos();
      lastSecond.addLast(now);
      if (lastSecond.size() > 6) {
        lastSecond.removeFirst();
      }
      if (lastSecond.size() == 6 && now - lastSecond.getFirst() <= IDLE_COMPILER_NANOS) {
        return;
      }
      if (System.nanoTime() > deadline) {
        System.out.println(
            "WARNING: the compiler threads were still busy a minute after the warm-up; measuring"
                + " anyway (see the JIT share)");
        return;
      }
      Broker.pause();
    }
  }

  /**
   * End offsets of every topic a measured pass may write: not the inputs, not the broker's own
   * ({@code __consumer_offsets}, {@code __transaction_state}), not a warm-up pass's (its outputs
   * and hops under {@value #WARMUP_PREFIX}, its changelogs under its application id).
   */
  private Map<TopicPartition, Long> writtenOffsets(Broker broker) {
    List<String> written =
        broker.topics().stream()
            .filter(
                t ->
                    !INPUTS.contains(t)
                        && !t.startsWith("__")
                        && !t.startsWith(WARMUP_PREFIX)
                        && !t.startsWith(WARMUP_APPLICATION))
            .toList();
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
      List<String> hops,
      java.util.function.Consumer<Map<String, Long>> progress) {
    long deadline = System.nanoTime() + Duration.ofHours(6).toNanos();
    Map<TopicPartition, Long> lastHopEnd = Map.of();
    int stable = 0;
    while (System.nanoTime() < deadline) {
      Broker.pause();
      Map<TopicPartition, Long> committed = broker.committed(group);
      Map<String, Long> read = new java.util.TreeMap<>();
      committed.forEach(
          (tp, offset) -> {
            if (inputEnd.containsKey(tp) || hops.contains(tp.topic())) {
              read.merge(tp.topic(), offset, Long::sum);
            }
          });
      progress.accept(read);
      boolean inputDone =
          inputEnd.entrySet().stream()
              .allMatch(e -> committed.getOrDefault(e.getKey(), 0L) >= e.getValue());
      if (!inputDone) {
        continue;
      }
      if (hops.isEmpty()) {
        return;
      }
      Map<TopicPartition, Long> hopEnd = broker.endOffsets(hops);
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
      long nanos,
      long cpuNanos,
      long jitNanos,
      long brokerCpuNanos,
      long processed,
      Map<String, Long> readByTopic) {

    Sample(long nanos, long cpuNanos, long jitNanos, long brokerCpuNanos, long processed) {
      this(nanos, cpuNanos, jitNanos, brokerCpuNanos, processed, Map.of());
    }
  }

  /**
   * Per-event cost in a window of {@link Settings#window()} input records starting at each
   * checkpoint (records already processed, hence ids already remembered): shows whether the cost
   * grows with the state, within one run on one input. Each window also says what it read, topic by
   * topic, hops included: the input records are not all alike (a billing message costs a merge, a
   * device event a session update), and once every device event is processed a window holds the
   * merge path's backlog alone (counts are offsets committed: a hop's include its transaction
   * markers).
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
          "    %,12d  %,10.0f records/s  %7.1f µs CPU/record (JIT %.0f%%)  read: %s%n",
          checkpoint,
          records / seconds,
          (to.cpuNanos() - from.cpuNanos()) / 1e3 / records,
          100.0 * (to.jitNanos() - from.jitNanos()) / (to.cpuNanos() - from.cpuNanos()),
          String.join(
              ", ",
              new java.util.TreeSet<>(to.readByTopic().keySet())
                  .stream()
                      .map(
                          t ->
                              "%s %,d"
                                  .formatted(
                                      t,
                                      to.readByTopic().get(t)
                                          - from.readByTopic().getOrDefault(t, 0L)))
                      .toList()));
    }
  }

  private static Sample firstAtLeast(List<Sample> samples, long processed) {
    return samples.stream().filter(s -> s.processed() >= processed).findFirst().orElse(null);
  }

  /**
   * Bytes on disk per state store: the first directory under a task's directory ({@code
   * <state.dir>/<application.id>/<task>/<store>/...}, RocksDB's own and a window store's segments
   * under it), summed over tasks, largest first.
   */
  static String sizeByStore(Path stateDir) {
    Map<String, Long> byStore = new java.util.TreeMap<>();
    try (Stream<Path> files = Files.walk(stateDir)) {
      files
          .filter(Files::isRegularFile)
          .forEach(
              file -> {
                Path relative = stateDir.relativize(file);
                String store =
                    relative.getNameCount() > 3 ? relative.getName(2).toString() : "(task files)";
                byStore.merge(store, file.toFile().length(), Long::sum);
              });
    } catch (IOException e) {
      return "unreadable: " + e.getMessage();
    }
    return byStore.entrySet().stream()
        .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
        .map(e -> String.format("%s %,d B", e.getKey(), e.getValue()))
        .collect(java.util.stream.Collectors.joining(", "));
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

  /**
   * The figures of a whole benchmark.
   *
   * @param warmupLoad the warm-up passes' load; null without them
   */
  record Report(
      Settings settings,
      DeviceEventLoad.Loaded load,
      DeviceEventLoad.Loaded warmupLoad,
      List<Run> runs) {

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
