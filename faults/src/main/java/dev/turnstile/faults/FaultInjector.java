package dev.turnstile.faults;

import dev.turnstile.testkit.servicebus.ServiceBusDouble;
import dev.turnstile.topology.domain.session.DeviceSessions;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CompletionService;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorCompletionService;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Injects one fault of a kind, undoes it as an operator or a supervisor would (a restart, a
 * SIGCONT, the network back), then sends the canaries and waits for them to settle. Every random
 * choice (which instance, how long) comes from the seeded {@link Random}, so a seed repeats the
 * schedule; the operating system's timing does not repeat.
 */
final class FaultInjector {

  /** How long the harness waits for a fault to heal before it records it as not healed. */
  static final Duration PATIENCE = Duration.ofMinutes(5);

  /** What Kafka Streams and its clients log when a zombie instance is fenced or loses its tasks. */
  private static final Pattern FENCED =
      Pattern.compile(
          ".*(ProducerFenced|InvalidProducerEpoch|INVALID_PRODUCER_EPOCH|TaskMigrated|fenced"
              + "|ILLEGAL_GENERATION|UNKNOWN_MEMBER_ID|CommitFailedException).*");

  /**
   * Kafka Streams 4.4's state updater logs the end offset of each changelog it is about to restore
   * (INFO, {@code StoreChangelogReader}); a non-zero end offset means a restore is starting.
   */
  private static final Pattern RESTORE_STARTED =
      Pattern.compile(
          ".*(?:Start restoring changelog partition (\\S+) "
              + "|End offset for changelog (\\S+) initialized as [1-9]).*");

  /** The method the punctuation kill stops in, and the punctuator that must be calling it. */
  static final String EXPIRE_METHOD = "expire";

  /** The punctuator's class (package-private in the topology) and method. */
  static final String PUNCTUATOR_CLASS =
      "dev.turnstile.topology.adapter.streams.DeviceSessionProcessor";

  static final String PUNCTUATOR = "expireDue";

  /** How long, in seconds, the punctuation kill waits for the punctuator to expire two sessions. */
  private static final int PUNCTUATION_WAIT = 120;

  /** How long the punctuation kill waits for a burst of abandoned sessions to be accepted. */
  private static final Duration BURST_WAIT = Duration.ofMinutes(3);

  private final KafkaCluster kafka;
  private final Deployment deployment;
  private final ServiceBusDouble serviceBus;
  private final Load load;
  private final Canary canary;
  private final Random random;
  private final Duration maxSessionDuration;
  private final Duration longestPause;

  FaultInjector(
      KafkaCluster kafka,
      Deployment deployment,
      ServiceBusDouble serviceBus,
      Load load,
      Canary canary,
      Random random,
      Duration maxSessionDuration,
      Duration longestPause) {
    this.kafka = kafka;
    this.deployment = deployment;
    this.serviceBus = serviceBus;
    this.load = load;
    this.canary = canary;
    this.random = random;
    this.maxSessionDuration = maxSessionDuration;
    this.longestPause = longestPause;
  }

  /** Injects fault {@code number} of {@code kind}, undoes it and waits for it to heal. */
  Fault inject(int number, FaultKind kind) {
    long started = System.currentTimeMillis();
    String[] target = new String[1];
    Supplier<String> note =
        switch (kind) {
          case TOPOLOGY_KILL -> known(killTopology(target));
          case TOPOLOGY_KILL_IN_RESTORE -> known(killTopologyInRestore(target));
          case TOPOLOGY_KILL_IN_PUNCTUATION -> known(killTopologyInPunctuation(target));
          case TOPOLOGY_PAUSE -> pauseTopology(target);
          case BRIDGE_KILL -> known(killBridge(target));
          case BROKER_STOP -> known(stopBroker(target, false));
          case BROKER_KILL -> known(stopBroker(target, true));
          case NETWORK_CUT -> known(cutNetwork(target));
          case SERVICEBUS_DETACH -> known(detachServiceBus(target));
        };
    List<String> refs = canary.send(number);
    long settled = canary.awaitSettled(refs, PATIENCE);
    long heal = settled < 0 ? -1 : Math.max(0, settled - started);
    return new Fault(number, kind, target[0], started, heal, note.get());
  }

  private static Supplier<String> known(String note) {
    return () -> note;
  }

  private int anyTopology() {
    return random.nextInt(deployment.topologyCount());
  }

  private String killTopology(String[] target) {
    int i = anyTopology();
    target[0] = Deployment.topologyName(i);
    deployment.topology(i).kill();
    long down = random.nextInt(3000);
    Pause.millis(down);
    deployment.startTopology(i);
    return "restarted after " + down + " ms";
  }

  /**
   * Kills the instance, restarts it on its (now stale) state directory and kills it again as soon
   * as Kafka Streams logs that it started restoring a changelog; then restarts it for good.
   */
  private String killTopologyInRestore(String[] target) {
    int i = anyTopology();
    target[0] = Deployment.topologyName(i);
    deployment.topology(i).kill();
    long mark = deployment.topology(i).logSize();
    deployment.startTopology(i);
    OsProcess process = deployment.topology(i);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    String note = null;
    while (note == null && System.nanoTime() < deadline) {
      Matcher restoring = RESTORE_STARTED.matcher("");
      for (String line : process.logSince(mark).split("\n")) {
        if (restoring.reset(line).matches()) {
          process.kill();
          String changelog = restoring.group(1) != null ? restoring.group(1) : restoring.group(2);
          note = "killed while restoring " + changelog;
          break;
        }
      }
      if (note == null && deployment.topologyReady(i)) {
        process.kill();
        note = "no restore seen before the instance was ready; killed once ready";
      }
      Pause.millis(20);
    }
    if (note == null) {
      process.kill();
      note = "neither a restore nor readiness within 120 s; killed";
    }
    deployment.startTopology(i);
    return note;
  }

  /**
   * Waits for the next burst of abandoned sessions to come close to falling due, then stops an
   * instance with a {@link Breakpoint} at the second session the punctuator expires from then on
   * ({@code DeviceSessions.expire}, called only by {@code DeviceSessionProcessor.expireDue}): the
   * punctuation has forwarded the first one's outputs in the open transaction and not saved the
   * second. Every instance gets the breakpoint and the first to stop there is the one killed (an
   * instance just restarted may hold no active session task, and then expires nothing); the others
   * are let go. SIGKILL while every thread of it is suspended there, then a restart.
   */
  private String killTopologyInPunctuation(String[] target) {
    // No burst pending (none accepted yet, or every one already due): wait for the next one.
    long due = nextDue();
    for (long until = System.currentTimeMillis() + BURST_WAIT.toMillis();
        due < 0 && System.currentTimeMillis() < until; ) {
      Pause.millis(500);
      due = nextDue();
    }
    if (due > 0) {
      Pause.millis(Math.max(0, due - System.currentTimeMillis() - 1500));
    }
    int count = deployment.topologyCount();
    List<Breakpoint> breakpoints = new ArrayList<>();
    List<String> unattached = new ArrayList<>();
    ExecutorService waiters = Executors.newFixedThreadPool(count);
    CompletionService<Map.Entry<Integer, Optional<Breakpoint.Hit>>> hits =
        new ExecutorCompletionService<>(waiters);
    int armed = 0;
    int killed = -1;
    Breakpoint.Hit hit = null;
    try {
      for (int i = 0; i < count; i++) {
        Breakpoint breakpoint;
        try {
          breakpoint = Breakpoint.attach(deployment.topologyDebugPort(i));
        } catch (UncheckedIOException e) {
          unattached.add(Deployment.topologyName(i) + " (" + e.getCause().getMessage() + ")");
          continue;
        }
        breakpoints.add(breakpoint);
        int instance = i;
        hits.submit(
            () ->
                Map.entry(
                    instance,
                    breakpoint.await(
                        DeviceSessions.class.getName(),
                        EXPIRE_METHOD,
                        2,
                        Duration.ofSeconds(PUNCTUATION_WAIT))));
        armed++;
      }
      for (int k = 0; k < armed && hit == null; k++) {
        Map.Entry<Integer, Optional<Breakpoint.Hit>> done = hits.take().get();
        if (done.getValue().isPresent()) {
          killed = done.getKey();
          hit = done.getValue().get();
          deployment.topology(killed).kill();
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException e) {
      throw new IllegalStateException("a breakpoint failed", e.getCause());
    } finally {
      breakpoints.forEach(Breakpoint::close); // the others resume
      waiters.shutdownNow();
    }
    String note;
    if (hit != null) {
      note =
          hit.frameIs(1, PUNCTUATOR_CLASS, PUNCTUATOR)
              ? "killed inside " + PUNCTUATOR + ", at its second expiry (" + hit.thread() + ")"
              : "killed at an expiry outside the punctuator: " + hit.frames();
    } else {
      killed = anyTopology();
      deployment.topology(killed).kill();
      note =
          "no expiry on any instance within " + PUNCTUATION_WAIT + " s of attaching; killed anyway";
    }
    if (!unattached.isEmpty()) {
      note += "; could not attach a debugger to " + unattached;
    }
    target[0] = Deployment.topologyName(killed);
    deployment.startTopology(killed);
    return note + (due > 0 ? "" : "; no burst was due");
  }

  /** When the earliest burst of abandoned sessions not yet due falls due, epoch ms; else -1. */
  private long nextDue() {
    long now = System.currentTimeMillis();
    long best = -1;
    for (long accepted : load.bursts()) {
      long due = accepted + maxSessionDuration.toMillis();
      if (due > now + 1000 && (best < 0 || due < best)) {
        best = due;
      }
    }
    return best > now + maxSessionDuration.toMillis() ? -1 : best;
  }

  /**
   * SIGSTOP for 12 s up to the longest pause (the transaction timeout is 10 s, the consumer's
   * session timeout 45 s), then SIGCONT. Whether the instance was fenced is read from its log once
   * the fault has healed, so the pause costs no more than itself.
   */
  private Supplier<String> pauseTopology(String[] target) {
    int i = anyTopology();
    target[0] = Deployment.topologyName(i);
    OsProcess process = deployment.topology(i);
    long mark = process.logSize();
    long floor = 12_000;
    long stopped = floor + random.nextInt((int) Math.max(1, longestPause.toMillis() - floor));
    process.signal(OsProcess.Signal.STOP);
    Pause.millis(stopped);
    process.signal(OsProcess.Signal.CONT);
    return () -> {
      String fenced = firstMatch(process.logSince(mark), FENCED);
      return "stopped "
          + stopped / 1000
          + " s; "
          + (fenced == null ? "no fencing logged by the time it healed" : "fenced: " + fenced);
    };
  }

  private static String firstMatch(String log, Pattern pattern) {
    for (String line : log.split("\n")) {
      if (pattern.matcher(line).matches()) {
        String trimmed = line.strip();
        return trimmed.length() > 160 ? trimmed.substring(0, 160) + "..." : trimmed;
      }
    }
    return null;
  }

  private String killBridge(String[] target) {
    target[0] = "bridge";
    int locked = serviceBus.lockedCount(Deployment.BILLING_QUEUE);
    deployment.bridge().kill();
    long down = random.nextInt(3000);
    Pause.millis(down);
    deployment.startBridge();
    return locked + " Service Bus messages locked at the kill; restarted after " + down + " ms";
  }

  private String stopBroker(String[] target, boolean kill) {
    KafkaCluster.Node node = kafka.nodes().get(random.nextInt(kafka.nodes().size()));
    target[0] = node.toString();
    long down = 5_000 + random.nextInt(25_000);
    if (kill) {
      node.process.kill();
    } else if (node.process.terminate(Duration.ofSeconds(60)) < 0) {
      return "did not stop within 60 s of SIGTERM; killed";
    }
    Pause.millis(down);
    kafka.startNode(node);
    return "down " + down / 1000 + " s";
  }

  private String cutNetwork(String[] target) {
    target[0] = "bridge <-> brokers";
    long cut = 5_000 + random.nextInt(25_000);
    kafka.cutBridge(true);
    Pause.millis(cut);
    kafka.cutBridge(false);
    return "cut " + cut / 1000 + " s";
  }

  private String detachServiceBus(String[] target) {
    target[0] = "bridge <-> Service Bus";
    long before = serviceBus.completesDetached();
    serviceBus.detachAtNextComplete(Deployment.BILLING_QUEUE);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (serviceBus.completesDetached() == before && System.nanoTime() < deadline) {
      Pause.millis(20);
    }
    if (serviceBus.completesDetached() > before) {
      return "link detached at a complete";
    }
    serviceBus.cancelDetachAtNextComplete(Deployment.BILLING_QUEUE);
    return "no complete within 60 s to detach at";
  }
}
