package dev.turnstile.faults;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The short form of {@code ./turnstile faults}: a Kafka broker, the bridge and two topology
 * instances (standby replicas on) as OS processes from the distributions, fed over HTTP and Service
 * Bus, with one fault of each kind below, then every output read {@code read_committed} and checked
 * against what was accepted. The seed is printed; {@code -Dfaults.seed=N} repeats a schedule.
 */
class FaultHarnessIT {

  static final Path REPOSITORY = Path.of("..").toAbsolutePath().normalize();

  /**
   * One of each in a seeded order (more, in the same order, while fewer than the events asked for
   * were sent): the faults the short form must survive.
   */
  static final List<FaultKind> KINDS =
      List.of(
          FaultKind.TOPOLOGY_KILL,
          FaultKind.BRIDGE_KILL,
          FaultKind.TOPOLOGY_PAUSE,
          FaultKind.TOPOLOGY_KILL_IN_PUNCTUATION);

  @Test
  void acceptedEventsHaveExactlyOneEffectThroughKillsAPauseAndAKillInThePunctuator()
      throws IOException {
    long seed = Long.getLong("faults.seed", new SecureRandom().nextLong());
    // Under target/, not the tests' temporary folder: a failed run keeps its logs there to read.
    Files.createDirectories(Path.of("target"));
    Path home = Files.createTempDirectory(Path.of("target"), "faults-it-").toAbsolutePath();
    FaultHarness.Settings settings =
        new FaultHarness.Settings(
            REPOSITORY,
            REPOSITORY.resolve("data/ev-workplace-charging-sessions-2014-2015.csv"),
            home,
            seed,
            10_000,
            KINDS.size(),
            KINDS,
            1,
            2,
            // Sessions expire 2 min after their Started arrived: longer than a fault here delays
            // processing, so an accepted Finished is never raced by its session's expiry (see the
            // docs/design.md, "Clocks", on the settling period); a burst of 200 abandoned sessions
            // 10 s into the load
            // and every minute after it expires while the faults go on, and gives the punctuation
            // kill an expiry to stop at.
            Duration.ofMinutes(2),
            Duration.ofSeconds(15),
            new Load.Plan(seed, 0.1, 0.2, 2, 8, 200, Duration.ofMinutes(1)),
            2_000,
            500,
            Duration.ZERO);
    System.out.println("FaultHarnessIT seed " + seed + " (repeat with -Dfaults.seed=" + seed + ")");

    FaultHarness.Outcome outcome = new FaultHarness(settings, System.out).run();

    Verdict verdict = outcome.verdict();
    assertThat(outcome.faults())
        .as("one fault of each kind, each healed; logs in %s", home)
        .extracting(Fault::kind)
        .containsAll(KINDS);
    assertThat(outcome.faults()).allMatch(Fault::healed, "healed");
    assertThat(outcome.faults())
        .filteredOn(f -> f.kind() == FaultKind.TOPOLOGY_KILL_IN_PUNCTUATION)
        .as("the punctuation kill stopped an instance inside the punctuator")
        .allMatch(f -> f.note().startsWith("killed inside expireDue"), "killed inside expireDue");
    assertThat(verdict.httpEventsAccepted()).isGreaterThan(5_000);
    assertThat(verdict.billingAccepted()).isGreaterThan(1_000);
    assertThat(verdict.lost()).as("lost; %s", verdict.problems()).isZero();
    assertThat(verdict.doubled()).as("doubled; %s", verdict.problems()).isZero();
    assertThat(verdict.unexplained()).as("effects without input; %s", verdict.problems()).isZero();
    assertThat(verdict.wrong()).as("wrong values; %s", verdict.problems()).isZero();
    assertThat(verdict.exactlyOnce()).isTrue();
    FaultsMain.delete(home);
  }
}
