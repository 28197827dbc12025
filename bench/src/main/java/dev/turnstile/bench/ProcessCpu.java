package dev.turnstile.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** CPU time of a process from {@code /proc/<pid>/stat} (Linux): user + system, in nanoseconds. */
final class ProcessCpu {

  /** Clock ticks per second of {@code /proc}; 100 on every Linux this runs on (USER_HZ). */
  private static final long TICKS_PER_SECOND = 100;

  static long nanos(long pid) {
    try {
      String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
      // Fields after the command name, which is in parentheses and may contain spaces.
      String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      long ticks = Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
      return ticks * (1_000_000_000L / TICKS_PER_SECOND);
    } catch (IOException | RuntimeException e) {
      return -1;
    }
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
