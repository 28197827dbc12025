package dev.turnstile.faults;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One operating-system process the harness started and may signal: a Kafka node, the bridge or a
 * topology instance. Its stdout and stderr are appended to one log file that survives restarts,
 * with a marker line per start, so a process's whole life reads in one place.
 */
final class OsProcess {

  /** The POSIX signals the harness sends. */
  enum Signal {
    TERM,
    KILL,
    STOP,
    CONT
  }

  private final String name;
  private final Process process;
  private final Path log;

  private OsProcess(String name, Process process, Path log) {
    this.name = name;
    this.process = process;
    this.log = log;
  }

  /**
   * Starts {@code command} with {@code environment} added to this JVM's (every inherited {@code
   * TURNSTILE_*} variable removed first, so only what the harness sets configures the process).
   *
   * @throws UncheckedIOException when the command cannot be started
   */
  static OsProcess start(
      String name, List<String> command, Map<String, String> environment, Path log) {
    try {
      Files.createDirectories(log.getParent());
      Files.writeString(
          log,
          "---- " + Instant.now() + " harness starts " + name + ": " + command + "\n",
          StandardCharsets.UTF_8,
          StandardOpenOption.CREATE,
          StandardOpenOption.APPEND);
      ProcessBuilder builder = new ProcessBuilder(command);
      builder.environment().keySet().removeIf(key -> key.startsWith("TURNSTILE_"));
      builder.environment().putAll(environment);
      builder.redirectErrorStream(true);
      builder.redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
      builder.redirectInput(ProcessBuilder.Redirect.PIPE);
      return new OsProcess(name, builder.start(), log);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start " + name + ": " + command, e);
    }
  }

  String name() {
    return name;
  }

  long pid() {
    return process.pid();
  }

  Path log() {
    return log;
  }

  boolean isAlive() {
    return process.isAlive();
  }

  /** Sends {@code signal} with {@code kill(1)}; Java's own API has only TERM and KILL. */
  void signal(Signal signal) {
    if (!process.isAlive()) {
      return;
    }
    try {
      Process kill = new ProcessBuilder("kill", "-" + signal.name(), Long.toString(pid())).start();
      if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
        throw new IllegalStateException("kill -" + signal + " " + pid() + " failed (" + name + ")");
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while signalling " + name, e);
    }
  }

  /** SIGKILL, then waits until the process is gone. */
  void kill() {
    process.destroyForcibly();
    awaitExit(Duration.ofSeconds(30));
  }

  /**
   * SIGTERM and waits up to {@code grace} for the process to end; SIGKILL after that.
   *
   * @return the exit code, or -1 when it had to be killed
   */
  int terminate(Duration grace) {
    if (!process.isAlive()) {
      return process.exitValue();
    }
    signal(Signal.CONT);
    process.destroy();
    if (awaitExit(grace)) {
      return process.exitValue();
    }
    kill();
    return -1;
  }

  /** True when the process ended within {@code timeout}. */
  boolean awaitExit(Duration timeout) {
    try {
      return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /** The log's text from {@code offset} (bytes) on; empty when there is nothing new. */
  String logSince(long offset) {
    try (RandomAccessFile file = new RandomAccessFile(log.toFile(), "r")) {
      long length = file.length();
      if (offset >= length) {
        return "";
      }
      byte[] tail = new byte[(int) Math.min(length - offset, 16 << 20)];
      file.seek(offset);
      file.readFully(tail);
      return new String(tail, StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "";
    }
  }

  /** The log's current size in bytes, a mark for {@link #logSince(long)}. */
  long logSize() {
    try {
      return Files.size(log);
    } catch (IOException e) {
      return 0;
    }
  }

  @Override
  public String toString() {
    return name + " (pid " + pid() + ")";
  }
}
