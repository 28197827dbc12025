package dev.turnstile.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.kafka.common.utils.internals.AppInfoParser;

/** What a figure was measured on: printed with every benchmark and kept in its results file. */
final class Machine {

  private Machine() {}

  static Map<String, String> describe() {
    Map<String, String> m = new LinkedHashMap<>();
    m.put("cpu", firstValue(Path.of("/proc/cpuinfo"), "model name"));
    m.put("cores", Integer.toString(Runtime.getRuntime().availableProcessors()));
    m.put("memory", firstValue(Path.of("/proc/meminfo"), "MemTotal"));
    m.put("os", System.getProperty("os.name") + " " + System.getProperty("os.version"));
    m.put("java", System.getProperty("java.vm.name") + " " + System.getProperty("java.version"));
    m.put("kafka", AppInfoParser.getVersion());
    m.put(
        "broker",
        "one KRaft node (KafkaClusterTestKit: one broker, one controller) in its own JVM, -Xmx1g,"
            + " on the same machine");
    return m;
  }

  /** The 1, 5 and 15 minute load averages ({@code /proc/loadavg}); "?" where unavailable. */
  static String loadAverage() {
    try {
      String[] fields = Files.readString(Path.of("/proc/loadavg")).trim().split(" ");
      return fields[0] + " " + fields[1] + " " + fields[2];
    } catch (IOException | RuntimeException e) {
      return "?";
    }
  }

  private static String firstValue(Path file, String key) {
    try {
      return Files.readAllLines(file).stream()
          .filter(l -> l.startsWith(key))
          .map(l -> l.substring(l.indexOf(':') + 1).trim())
          .findFirst()
          .orElse("?");
    } catch (IOException e) {
      return "?";
    }
  }
}
