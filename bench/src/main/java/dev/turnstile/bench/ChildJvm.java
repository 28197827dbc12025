package dev.turnstile.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A JVM started by the harness on its own class path. Lines the child prints on stdout are read by
 * a daemon thread; its stderr goes to a log file so a failure can be read afterwards.
 */
final class ChildJvm implements AutoCloseable {

  private final Process process;
  private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
  private final Path log;
  private final Path argFile;

  private ChildJvm(Process process, Path log, Path argFile) {
    this.process = process;
    this.log = log;
    this.argFile = argFile;
    Thread reader =
        new Thread(
            () -> {
              try (BufferedReader in =
                  new BufferedReader(
                      new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = in.readLine()) != null) {
                  lines.add(line);
                }
              } catch (IOException ignored) {
                // the child ended
              }
            },
            "child-stdout");
    reader.setDaemon(true);
    reader.start();
  }

  /**
   * @param jvmOptions options before the main class (heap, agent)
   * @param log where the child's stderr goes
   */
  static ChildJvm start(List<String> jvmOptions, String mainClass, List<String> args, Path log) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(jvmOptions);
    try {
      Files.createDirectories(log.getParent());
      // The class path, main class and arguments go in an argument file the launcher reads
      // (JDK 9+ "@argfiles"), readable by this user only: a process's command line is readable
      // by every user of the machine, and the arguments carry configuration values, secrets
      // among them when a run is given any.
      List<String> rest = new ArrayList<>(List.of("-cp", System.getProperty("java.class.path")));
      rest.add(mainClass);
      rest.addAll(args);
      Path argFile =
          Files.createTempFile(
              log.getParent(),
              "args-",
              ".txt",
              PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
      Files.writeString(argFile, argFileText(rest), argumentEncoding());
      argFile.toFile().deleteOnExit();
      command.add("@" + argFile);
      Process process =
          new ProcessBuilder(command)
              .redirectError(ProcessBuilder.Redirect.to(log.toFile()))
              .start();
      return new ChildJvm(process, log, argFile);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start " + mainClass, e);
    }
  }

  /**
   * {@code args} as a launcher argument file: each argument quoted, one per line, with {@code \\},
   * {@code "} and line breaks escaped as the launcher reads them back, so any argument reaches the
   * child unchanged.
   */
  static String argFileText(List<String> args) {
    StringBuilder text = new StringBuilder();
    for (String arg : args) {
      text.append('"')
          .append(
              arg.replace("\\", "\\\\")
                  .replace("\"", "\\\"")
                  .replace("\n", "\\n")
                  .replace("\r", "\\r"))
          .append("\"\n");
    }
    return text.toString();
  }

  /** How the launcher decodes an argument file: the platform's encoding for arguments. */
  private static Charset argumentEncoding() {
    String name = System.getProperty("sun.jnu.encoding");
    return name != null && Charset.isSupported(name)
        ? Charset.forName(name)
        : Charset.defaultCharset();
  }

  /**
   * Any other program (e.g. another vendor's server on its own JDK), its stdout and stderr both to
   * {@code log}; stop it with {@link #terminate()}.
   */
  static ChildJvm startProgram(List<String> command, Path log) {
    try {
      Files.createDirectories(log.getParent());
      Process process =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.to(log.toFile()))
              .start();
      return new ChildJvm(process, log, null);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start " + command.get(0), e);
    }
  }

  /** Sends SIGTERM, as a pod's stop does, then waits as {@link #close()} does. */
  void terminate() {
    process.destroy();
    close();
  }

  boolean alive() {
    return process.isAlive();
  }

  /** Waits for a line starting with {@code prefix} and returns the rest of it. */
  String await(String prefix, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    try {
      while (true) {
        long left = deadline - System.nanoTime();
        String line =
            left <= 0 ? null : lines.poll(Math.min(left, 200_000_000L), TimeUnit.NANOSECONDS);
        if (line != null && line.startsWith(prefix)) {
          return line.substring(prefix.length()).trim();
        }
        if (line == null && (!process.isAlive() || left <= 0)) {
          throw new IllegalStateException(
              "no '"
                  + prefix
                  + "' from the child"
                  + (process.isAlive() ? " in time" : " (it exited)")
                  + "; its log: "
                  + log
                  + "\n"
                  + tail());
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  /** Writes {@code line} to the child's stdin (the topology runner takes commands there). */
  void send(String line) {
    try {
      process.getOutputStream().write((line + "\n").getBytes(StandardCharsets.UTF_8));
      process.getOutputStream().flush();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write to the child; its log: " + log, e);
    }
  }

  long pid() {
    return process.pid();
  }

  /** CPU time (user + system) the child used so far, from {@code /proc}; -1 where unavailable. */
  long cpuNanos() {
    return ProcessCpu.nanos(process.pid());
  }

  /**
   * CPU time the child's JIT compiler threads used so far: the last value seen of every compiler
   * thread, so one that HotSpot retired since still counts ({@link ProcessCpu#compilerNanos}).
   */
  synchronized long compilerCpuNanos() {
    compilerThreads.putAll(ProcessCpu.compilerNanos(process.pid()));
    return compilerThreads.values().stream().mapToLong(Long::longValue).sum();
  }

  private final Map<Long, Long> compilerThreads = new HashMap<>();

  /** The child's resident memory now, bytes; -1 where unavailable. */
  long rssBytes() {
    return ProcessCpu.rssBytes(process.pid());
  }

  /** Closes the child's stdin (the children stop on it), then waits, then kills. */
  @Override
  public void close() {
    if (argFile != null) {
      try {
        Files.deleteIfExists(argFile); // the launcher read it as the child started
      } catch (IOException ignored) {
        // removed with the work directory, or when the harness exits
      }
    }
    try {
      process.getOutputStream().close();
    } catch (IOException ignored) {
      // already gone
    }
    try {
      if (!process.waitFor(60, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
  }

  private String tail() {
    try {
      List<String> all = Files.readAllLines(log);
      return String.join("\n", all.subList(Math.max(0, all.size() - 30), all.size()));
    } catch (IOException e) {
      return "(no log)";
    }
  }
}
