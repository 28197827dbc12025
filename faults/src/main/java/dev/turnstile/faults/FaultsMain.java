package dev.turnstile.faults;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.turnstile.local.EvChargingDataset;
import dev.turnstile.schemas.Json;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code ./turnstile faults}: the fault harness, see {@link FaultHarness}. */
@Command(
    name = "turnstile faults",
    mixinStandardHelpOptions = true,
    description = {
      "Runs the bridge and two topology instances (standby replicas on) as OS processes from their"
          + " distributions on three Kafka broker processes (min.insync.replicas=2), feeds them"
          + " the EV dataset replayed and generated sessions over HTTP and Service Bus, injects"
          + " faults at random (seeded) until both targets are reached (or --max-minutes is"
          + " spent), then reads every output"
          + " read_committed and checks that each accepted event has exactly one effect.",
      "Exit code 0: both targets reached, nothing lost, nothing doubled, every fault healed;"
          + " 1: otherwise; 2: bad arguments."
    })
public final class FaultsMain implements Callable<Integer> {

  @Option(names = "--seed", description = "seed of the schedule and the load (default: random)")
  Long seed;

  @Option(names = "--events", description = "events to send at least (default: ${DEFAULT-VALUE})")
  long events = 1_000_000;

  @Option(names = "--faults", description = "faults to inject at least (default: ${DEFAULT-VALUE})")
  int faults = 50;

  @Option(
      names = "--kinds",
      split = ",",
      description = "fault kinds, comma-separated (default: all): ${COMPLETION-CANDIDATES}")
  List<FaultKind> kinds = Arrays.asList(FaultKind.values());

  @Option(names = "--brokers", description = "Kafka broker processes (default: ${DEFAULT-VALUE})")
  int brokers = 3;

  @Option(
      names = "--max-session-seconds",
      description =
          "topology.session.max-duration-ms of the run, in seconds: abandoned sessions expire"
              + " after it (default: ${DEFAULT-VALUE})")
  int maxSessionSeconds = 300;

  @Option(
      names = "--longest-pause-seconds",
      description =
          "a SIGSTOPped topology instance stays stopped 12 s up to this (default:"
              + " ${DEFAULT-VALUE}; 45 s is the consumer's session timeout)")
  int longestPauseSeconds = 50;

  @Option(
      names = "--abandoned-burst",
      description = "Started-only sessions per burst (default: ${DEFAULT-VALUE})")
  int abandonedBurst = 2000;

  @Option(
      names = "--abandoned-every-seconds",
      description = "seconds between bursts (default: ${DEFAULT-VALUE})")
  int abandonedEverySeconds = 45;

  @Option(
      names = "--in-flight",
      description = "sessions being sent at once (default: ${DEFAULT-VALUE})")
  int inFlight = 48;

  @Option(
      names = "--generated-per-row",
      description = "generated sessions after each replayed row (default: ${DEFAULT-VALUE})")
  int generatedPerRow = 2;

  @Option(
      names = "--max-lag",
      description =
          "the load is held back while the topology lags more than this many records, summed over"
              + " every topic it reads (default: ${DEFAULT-VALUE})")
  long maxLag = 5_000;

  @Option(
      names = "--max-minutes",
      description =
          "time budget: once spent, no new fault is begun and the run is checked as it stands"
              + " (it fails if the targets were not reached, but says whether anything was lost or"
              + " doubled); 0 = none (default: ${DEFAULT-VALUE})")
  int maxMinutes;

  @Option(names = "--data", description = "CSV to replay (default: ${DEFAULT-VALUE})")
  Path data = EvChargingDataset.SHIPPED;

  @Option(
      names = "--work",
      description = "folder for data and logs (default: a new temporary folder)")
  Path work;

  @Option(names = "--keep", description = "keep the work folder (always kept when a run fails)")
  boolean keep;

  @Option(names = "--json", description = "also write the figures to this JSON file")
  Path json;

  @Override
  public Integer call() throws IOException {
    long chosen = seed != null ? seed : new SecureRandom().nextLong();
    Path home = work != null ? work : Files.createTempDirectory("turnstile-faults-");
    FaultHarness.Settings settings =
        new FaultHarness.Settings(
            Path.of("").toAbsolutePath(),
            data,
            home,
            chosen,
            events,
            faults,
            List.copyOf(kinds),
            brokers,
            2,
            Duration.ofSeconds(maxSessionSeconds),
            Duration.ofSeconds(longestPauseSeconds),
            new Load.Plan(
                chosen,
                0.1,
                0.2,
                generatedPerRow,
                inFlight,
                abandonedBurst,
                Duration.ofSeconds(abandonedEverySeconds)),
            maxLag,
            3_000,
            Duration.ofMinutes(maxMinutes));
    // Ctrl-C or SIGTERM: the brokers, the bridge and the topology instances go with this JVM
    // (without this they kept running, holding their ports and the work folder).
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> ProcessHandle.current().descendants().forEach(ProcessHandle::destroyForcibly),
                "faults-children"));
    FaultHarness.Outcome outcome = new FaultHarness(settings, System.out).run();
    if (json != null) {
      ObjectNode figures =
          Report.json(
              chosen, outcome.faults(), outcome.verdict(), outcome.ledger(), outcome.wallMillis());
      Files.writeString(
          json, Json.mapper().writerWithDefaultPrettyPrinter().writeValueAsString(figures) + "\n");
    }
    System.out.printf(
        "repeat this schedule: ./turnstile faults --seed %d --events %d --faults %d --kinds %s%n",
        chosen, events, faults, String.join(",", kinds.stream().map(k -> k.name()).toList()));
    if (outcome.passed() && !keep) {
      delete(home);
    } else {
      System.out.println("logs and data kept in " + home);
    }
    return outcome.passed() ? 0 : 1;
  }

  static void delete(Path home) throws IOException {
    try (Stream<Path> files = Files.walk(home)) {
      for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }

  public static void main(String[] args) {
    CommandLine line = new CommandLine(new FaultsMain());
    line.setCaseInsensitiveEnumValuesAllowed(true);
    line.registerConverter(
        FaultKind.class,
        s -> FaultKind.valueOf(s.trim().toUpperCase(Locale.ROOT).replace('-', '_')));
    System.exit(line.execute(args));
  }
}
