package dev.turnstile.faults;

import dev.turnstile.local.ChargingSession;
import dev.turnstile.local.EvChargingDataset;
import dev.turnstile.schemas.TopicCatalogue;
import dev.turnstile.testkit.servicebus.BrokeredMessage;
import dev.turnstile.testkit.servicebus.ServiceBusDouble;
import dev.turnstile.topology.TopologyApplication;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.BooleanSupplier;

/**
 * One run: starts Kafka (its own processes), the Service Bus double, the bridge and the topology
 * instances (their distributions), drives the load, injects faults until both the event and the
 * fault targets are reached, lets everything drain, checks every output and prints the report.
 */
final class FaultHarness {

  /** What a run does; {@link FaultsMain} documents each. */
  record Settings(
      Path repository,
      Path data,
      Path home,
      long seed,
      long events,
      int faults,
      List<FaultKind> kinds,
      int brokers,
      int topologyInstances,
      Duration maxSessionDuration,
      Duration longestPause,
      Load.Plan load,
      long maxLag,
      long maxBacklog,
      Duration budget) {}

  /** What a run found. */
  record Outcome(
      List<Fault> faults, Verdict verdict, Ledger ledger, long wallMillis, boolean targetsMet) {
    boolean passed() {
      return targetsMet && verdict.exactlyOnce() && faults.stream().allMatch(Fault::healed);
    }
  }

  private static final Duration PUNCTUATE_INTERVAL = Duration.ofSeconds(1);

  /**
   * How long a topology task without records counts as stalled rather than idle before it expires
   * by the wall clock: {@code max(30 s, 3 punctuations)}, {@code DeviceSessionProcessor}.
   */
  private static final Duration TOPOLOGY_SETTLING = Duration.ofSeconds(30);

  /**
   * Every topic the topology's group reads (its source nodes'), so that the throttle bounds the
   * backlog of every stage: when a hop was left out, its stage's backlog grew to 20,000 records
   * unchecked in a full run, and the canaries, which must pass every stage, took past 5 minutes to
   * settle; a topic it no longer reads would count its whole length as lag.
   */
  private static final List<String> CONSUMED = List.copyOf(TopologyApplication.sourceTopics());

  private final Settings settings;
  private final PrintStream out;
  private final long began = System.currentTimeMillis();

  FaultHarness(Settings settings, PrintStream out) {
    this.settings = settings;
    this.out = out;
  }

  Outcome run() {
    Deployment.checkDistributions(settings.repository());
    List<ChargingSession> rows = EvChargingDataset.read(settings.data());
    say(
        "seed %d: %,d events and %d faults at least, of %s; %d Kafka brokers, bridge and %d"
            + " topology instances; work in %s",
        settings.seed(),
        settings.events(),
        settings.faults(),
        settings.kinds(),
        settings.brokers(),
        settings.topologyInstances(),
        settings.home());
    try (KafkaCluster kafka = KafkaCluster.start(settings.home(), settings.brokers());
        ServiceBusDouble serviceBus = ServiceBusDouble.start()) {
      say(
          "Kafka up: %s (bridge through proxies %s)",
          kafka.bootstrapServers(), kafka.bridgeBootstrapServers());
      serviceBus.createQueue(Deployment.BILLING_QUEUE);
      try (Deployment deployment =
          new Deployment(
              settings.repository(),
              settings.home(),
              kafka,
              serviceBus.connectionString(),
              settings.topologyInstances(),
              new Deployment.TopologySettings(settings.maxSessionDuration(), PUNCTUATE_INTERVAL))) {
        deployment.createTopics(kafka, Math.min(3, settings.brokers()));
        for (int i = 0; i < settings.topologyInstances(); i++) {
          deployment.startTopology(i);
        }
        deployment.startBridge();
        awaitSteady(kafka, deployment, Duration.ofMinutes(3));
        say("bridge and %d topology instances ready", settings.topologyInstances());
        return drive(kafka, deployment, serviceBus, rows);
      }
    }
  }

  private Outcome drive(
      KafkaCluster kafka,
      Deployment deployment,
      ServiceBusDouble serviceBus,
      List<ChargingSession> rows) {
    Ledger ledger = new Ledger();
    DeviceClient devices =
        new DeviceClient(deployment.bridgeUri(), deployment.deviceToken(), ledger);
    List<Fault> faults = new ArrayList<>();
    try (BillingSender billing =
            new BillingSender(serviceBus.connectionString(), Deployment.BILLING_QUEUE, ledger);
        Throttle throttle =
            new Throttle(
                kafka.admin(),
                "turnstile-topology",
                CONSUMED,
                () -> billing.pending() + serviceBus.messageCount(Deployment.BILLING_QUEUE),
                settings.maxLag(),
                settings.maxBacklog());
        OutputWatcher settled =
            new OutputWatcher(
                kafka.bootstrapServers(), TopicCatalogue.POST_MERGE.baseName(), Canary::isCanary)) {
      Load load = new Load(settings.load(), rows, ledger, devices, billing, throttle);
      Canary canary = new Canary(load, settled);
      long baseline = canary.awaitSettled(canary.send(0), FaultInjector.PATIENCE);
      say("canaries through an idle pipeline in %.1f s", (baseline - began) / 1000.0);
      load.start();
      Random random = new Random(settings.seed());
      FaultInjector injector =
          new FaultInjector(
              kafka,
              deployment,
              serviceBus,
              load,
              canary,
              random,
              settings.maxSessionDuration(),
              settings.longestPause());
      injectFaults(injector, random, faults, load, kafka, deployment, throttle, ledger);
      say("stopping the load; waiting for every answer");
      devices.giveUpAfter(FaultInjector.PATIENCE);
      load.stop();
      billing.close();
      drain(load, serviceBus, throttle);
      if (!devices.refusals().isEmpty()) {
        say("requests refused by the bridge: %s", devices.refusals());
      }
      say("reading every output topic read_committed");
      Set<String> deadLettered = new HashSet<>();
      Map<String, Integer> deadLetterReasons = new TreeMap<>();
      for (BrokeredMessage m : serviceBus.deadLetters(Deployment.BILLING_QUEUE)) {
        deadLettered.add(m.messageId());
        deadLetterReasons.merge(String.valueOf(m.deadLetterReason()), 1, Integer::sum);
      }
      if (!deadLettered.isEmpty()) {
        say(
            "billing messages dead-lettered by reason: %s (first: %s)",
            deadLetterReasons, deadLettered.stream().sorted().limit(10).toList());
      }
      Verdict verdict =
          new Checker(kafka.bootstrapServers()).read(ledger).judge(ledger, deadLettered);
      Outcome outcome =
          new Outcome(
              faults,
              verdict,
              ledger,
              System.currentTimeMillis() - began,
              targetsMet(faults.size(), load.events()));
      Report.print(out, faults, verdict, ledger, outcome.wallMillis());
      return outcome;
    }
  }

  private void injectFaults(
      FaultInjector injector,
      Random random,
      List<Fault> faults,
      Load load,
      KafkaCluster kafka,
      Deployment deployment,
      Throttle throttle,
      Ledger ledger) {
    List<FaultKind> block = new ArrayList<>();
    while (!targetsMet(faults.size(), load.events())) {
      if (overBudget()) {
        say(
            "time budget of %s spent: stopping after %d faults and %,d events (targets %d and"
                + " %,d); the run is checked, and fails for the targets",
            settings.budget(), faults.size(), load.events(), settings.faults(), settings.events());
        return;
      }
      if (block.isEmpty()) {
        block.addAll(settings.kinds());
        Collections.shuffle(block, random);
      }
      FaultKind kind = block.remove(0);
      Pause.millis(2_000 + random.nextInt(6_000));
      awaitSteady(kafka, deployment, FaultInjector.PATIENCE);
      Fault fault = injector.inject(faults.size() + 1, kind);
      faults.add(fault);
      say(
          "fault %d %s on %s: %s; %s; events %,d, HTTP accepted %,d, lag %,d, backlog %,d",
          fault.number(),
          kind.name().toLowerCase(java.util.Locale.ROOT),
          fault.target(),
          fault.note(),
          fault.healed()
              ? String.format("healed in %.1f s", fault.healMillis() / 1000.0)
              : "NOT HEALED within " + FaultInjector.PATIENCE,
          load.events(),
          ledger.httpEventsAccepted(),
          throttle.lag(),
          throttle.backlog());
    }
  }

  private boolean targetsMet(int faults, long events) {
    return faults >= settings.faults() && events >= settings.events();
  }

  /** Whether the run's time budget (none when zero) is spent: no new fault is begun then. */
  private boolean overBudget() {
    return !settings.budget().isZero()
        && System.currentTimeMillis() - began >= settings.budget().toMillis();
  }

  /** Every process up and ready, every broker back and every partition fully replicated. */
  private void awaitSteady(KafkaCluster kafka, Deployment deployment, Duration timeout) {
    List<String> topics = TopicCatalogue.ALL.stream().map(t -> t.baseName()).toList();
    boolean steady =
        await(
            timeout,
            () -> {
              for (int i = 0; i < deployment.topologyCount(); i++) {
                if (!deployment.topologyReady(i)) {
                  return false;
                }
              }
              return deployment.bridgeReady()
                  && kafka.nodes().stream().allMatch(n -> n.process.isAlive())
                  && kafka.underReplicated(topics) == 0;
            });
    if (!steady) {
      say("WARNING: not steady after %s; going on", timeout);
    }
  }

  /**
   * Waits for the Service Bus queue to empty and the lag to reach 0, then for the expiries still
   * due: the last burst's deadline, and the topology's settling period after its last record (an
   * idle partition's sessions expire up to that much late, see docs/design.md, "Clocks").
   */
  private void drain(Load load, ServiceBusDouble serviceBus, Throttle throttle) {
    if (!await(
        FaultInjector.PATIENCE, () -> serviceBus.messageCount(Deployment.BILLING_QUEUE) == 0)) {
      say(
          "WARNING: %d billing messages still on Service Bus",
          serviceBus.messageCount(Deployment.BILLING_QUEUE));
    }
    int[] zeroes = {0};
    if (!await(
        FaultInjector.PATIENCE,
        () -> {
          zeroes[0] = throttle.measureLag() == 0 ? zeroes[0] + 1 : 0;
          return zeroes[0] >= 3;
        })) {
      say("WARNING: the topology still lags %,d records", throttle.measureLag());
    }
    long lastBurst = load.bursts().stream().mapToLong(Long::longValue).max().orElse(0);
    long expiries =
        Math.max(
                lastBurst + settings.maxSessionDuration().toMillis(),
                System.currentTimeMillis() + TOPOLOGY_SETTLING.toMillis())
            + 5_000;
    say(
        "waiting %.0f s for the last abandoned sessions to expire",
        (expiries - System.currentTimeMillis()) / 1000.0);
    Pause.millis(Math.max(0, expiries - System.currentTimeMillis()));
  }

  private static boolean await(Duration timeout, BooleanSupplier condition) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      if (condition.getAsBoolean()) {
        return true;
      }
      Pause.millis(500);
    }
    return false;
  }

  private void say(String format, Object... args) {
    out.printf(
        "[%6.1f s] %s%n",
        (System.currentTimeMillis() - began) / 1000.0, String.format(format, args));
    out.flush();
  }
}
