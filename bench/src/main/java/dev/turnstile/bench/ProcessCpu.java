package dev.turnstile.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Stream;

/** CPU time of a process from {@code /proc/<pid>/stat} (Linux): user + system, in nanoseconds. */
final class ProcessCpu {

  /** Clock ticks per second of {@code /proc}; 100 on every Linux this runs on (USER_HZ). */
  private static final long TICKS_PER_SECOND = 100;

  static long nanos(long pid) {
    try {
      return statNanos(Path.of("/proc", Long.toString(pid), "stat"));
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }

  /**
   * CPU time of each live JIT compiler thread of a JVM ({@code C1 CompilerThread*}, {@code C2
   * CompilerThread*}, as {@code /proc/<pid>/task/<tid>/comm} names them), nanoseconds by thread id;
   * empty if unknown. HotSpot retires idle compiler threads, so a caller that wants a total sums
   * the last value seen of every thread ({@link ChildJvm#compilerCpuNanos}).
   */
  static Map<Long, Long> compilerNanos(long pid) {
    Map<Long, Long> byThread = new HashMap<>();
    try (Stream<Path> tasks = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
      for (Path task : (Iterable<Path>) tasks::iterator) {
        try {
          if (Files.readString(task.resolve("comm")).contains("CompilerThre")) {
            byThread.put(
                Long.parseLong(task.getFileName().toString()), statNanos(task.resolve("stat")));
          }
        } catch (IOException | RuntimeException e) {
          // the thread exited between the listing and the read
        }
      }
    } catch (IOException | RuntimeException e) {
      // gone, or not Linux
    }
    return byThread;
  }

  private static long statNanos(Path stat) throws IOException {
    String text = Files.readString(stat);
    // Fields after the command name, which is in parentheses and may contain spaces.
    String[] fields = text.substring(text.lastIndexOf(')') + 2).split(" ");
    long ticks = Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
    return ticks * (1_000_000_000L / TICKS_PER_SECOND);
  }

  /**
   * Resident set size of a process from {@code /proc/<pid>/status} (VmRSS), bytes; -1 if unknown.
   */
  static long rssBytes(long pid) {
    try {
      for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
        if (line.startsWith("VmRSS:")) {
          return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
        }
      }
    } catch (IOException | RuntimeException e) {
      // gone, or not Linux
    }
    return -1;
  }

  private ProcessCpu() {}
}
