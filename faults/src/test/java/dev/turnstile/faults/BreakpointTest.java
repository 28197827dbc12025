package dev.turnstile.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.turnstile.topology.domain.session.DeviceSessions;
import java.io.IOException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link Breakpoint} against a real JVM: a child process ({@link Ticker}) started with the JDWP
 * agent, stopped at an exact call and killed there.
 */
class BreakpointTest {

  @TempDir Path dir;

  /** The child: prints "before n", calls {@code tick(n)}, prints "after n", for n = 1, 2, ... */
  public static final class Ticker {
    public static void main(String[] args) throws InterruptedException {
      for (int n = 1; ; n++) {
        System.out.println("before " + n);
        tick(n);
        System.out.println("after " + n);
        Thread.sleep(20);
      }
    }

    static void tick(int n) {
      if (n < 0) {
        throw new IllegalArgumentException();
      }
    }

    static void never() {}
  }

  @Test
  void stopsEveryThreadAtTheNthCallSoAKillLandsThere() throws IOException {
    int port = Ports.free();
    OsProcess child = ticker(port);
    try (Breakpoint breakpoint = Breakpoint.attach(port)) {
      Optional<Breakpoint.Hit> hit =
          breakpoint.await(Ticker.class.getName(), "tick", 3, Duration.ofSeconds(30));
      assertThat(hit).isPresent();
      assertThat(hit.get().thread()).isEqualTo("main");
      assertThat(hit.get().frameIs(0, Ticker.class.getName(), "tick")).isTrue();
      assertThat(hit.get().frameIs(1, Ticker.class.getName(), "main")).isTrue();
      String when = Files.readString(child.log());
      child.kill();
      String log = Files.readString(child.log());
      // Suspended between "before k" and "after k" from the hit until the kill.
      int k = lastBefore(when);
      assertThat(k).isGreaterThanOrEqualTo(3);
      assertThat(log).contains("before " + k).doesNotContain("after " + k);
    } finally {
      child.kill();
    }
  }

  /** A restarted topology instance listens on the port its killed predecessor was attached on. */
  @Test
  void aProcessKilledAtAHitCanBeStartedAgainOnTheSamePort() {
    int port = Ports.free();
    OsProcess first = ticker(port);
    try (Breakpoint breakpoint = Breakpoint.attach(port)) {
      assertThat(breakpoint.await(Ticker.class.getName(), "tick", 1, Duration.ofSeconds(30)))
          .isPresent();
      first.kill();
    }
    OsProcess second = ticker(port);
    try (Breakpoint breakpoint = Breakpoint.attach(port)) {
      assertThat(second.isAlive()).isTrue();
      assertThat(breakpoint.await(Ticker.class.getName(), "tick", 1, Duration.ofSeconds(30)))
          .isPresent();
    } finally {
      second.kill();
    }
  }

  @Test
  void aCallThatNeverComesLeavesTheProcessRunning() throws IOException {
    int port = Ports.free();
    OsProcess child = ticker(port);
    try (Breakpoint breakpoint = Breakpoint.attach(port)) {
      assertThat(breakpoint.await(Ticker.class.getName(), "never", 1, Duration.ofMillis(300)))
          .isEmpty();
      int k = lastBefore(Files.readString(child.log()));
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (lastBefore(Files.readString(child.log())) < k + 3 && System.nanoTime() < deadline) {
        Pause.millis(20);
      }
      assertThat(lastBefore(Files.readString(child.log()))).isGreaterThanOrEqualTo(k + 3);
    } finally {
      child.kill();
    }
  }

  @Test
  void refusesAMethodItCannotNameUniquely() {
    int port = Ports.free();
    OsProcess child = ticker(port);
    try (Breakpoint breakpoint = Breakpoint.attach(port)) {
      assertThatThrownBy(
              () -> breakpoint.await(Ticker.class.getName(), "absent", 1, Duration.ofSeconds(5)))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("0 methods named absent");
    } finally {
      child.kill();
    }
  }

  /** The punctuation kill names topology code by string: held to the code here. */
  @Test
  void thePunctuationKillNamesCodeThatExists() throws ClassNotFoundException {
    assertThat(
            Arrays.stream(DeviceSessions.class.getDeclaredMethods())
                .filter(m -> m.getName().equals(FaultInjector.EXPIRE_METHOD)))
        .hasSize(1);
    List<Method> punctuators =
        Arrays.stream(Class.forName(FaultInjector.PUNCTUATOR_CLASS).getDeclaredMethods())
            .filter(m -> m.getName().equals(FaultInjector.PUNCTUATOR))
            .toList();
    assertThat(punctuators).hasSize(1);
    assertThat(Modifier.isStatic(punctuators.get(0).getModifiers())).isFalse();
  }

  private OsProcess ticker(int port) {
    OsProcess child =
        OsProcess.start(
            "ticker",
            List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                Breakpoint.jvmOption(port),
                "-cp",
                System.getProperty("java.class.path"),
                Ticker.class.getName()),
            java.util.Map.of(),
            dir.resolve("ticker-" + System.nanoTime() + ".log"));
    // The agent listens before main runs: wait for the first tick, so attach finds it.
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (lastBefore(read(child.log())) < 1 && System.nanoTime() < deadline) {
      Pause.millis(20);
    }
    return child;
  }

  private static String read(Path log) {
    try {
      return Files.readString(log);
    } catch (IOException e) {
      return "";
    }
  }

  /** The largest k of a "before k" line, or 0. */
  private static int lastBefore(String log) {
    int last = 0;
    for (String line : log.split("\n")) {
      if (line.startsWith("before ")) {
        last = Math.max(last, Integer.parseInt(line.substring(7).trim()));
      }
    }
    return last;
  }
}
