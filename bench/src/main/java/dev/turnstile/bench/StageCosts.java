package dev.turnstile.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Where a stream thread's CPU went, by stage, from a profile's collapsed stacks: each sample is
 * charged to the innermost Turnstile processor on its stack (a stage's own work, including the
 * records it sends, excluding what its children do), the rest to Kafka Streams itself (polling,
 * committing, punctuation scheduling).
 */
final class StageCosts {

  private static final Pattern PROCESSOR =
      Pattern.compile(
          "dev/turnstile/topology/adapter/streams/([A-Za-z]+Processor)\\.(process|expireDue)");

  private StageCosts() {}

  /** Share of the stream threads' samples per processor class, plus "kafka-streams". */
  static Map<String, Double> shares(Path collapsed) {
    Map<String, Long> samples = new LinkedHashMap<>();
    long total = 0;
    try {
      for (String line : Files.readAllLines(collapsed)) {
        int space = line.lastIndexOf(' ');
        if (space < 0 || !line.contains("StreamThread.run")) {
          continue;
        }
        long count = Long.parseLong(line.substring(space + 1).trim());
        String stage = "kafka-streams";
        Matcher m = PROCESSOR.matcher(line.substring(0, space));
        while (m.find()) {
          stage = m.group(1);
        }
        samples.merge(stage, count, Long::sum);
        total += count;
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Map<String, Double> shares = new LinkedHashMap<>();
    long all = total;
    samples.entrySet().stream()
        .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
        .forEach(e -> shares.put(e.getKey(), all == 0 ? 0 : (double) e.getValue() / all));
    return shares;
  }

  /** Share of all samples (every thread of the process) taken by stream threads. */
  static double streamThreadShare(Path collapsed) {
    long stream = 0;
    long all = 0;
    try {
      for (String line : Files.readAllLines(collapsed)) {
        int space = line.lastIndexOf(' ');
        if (space < 0) {
          continue;
        }
        long count = Long.parseLong(line.substring(space + 1).trim());
        all += count;
        if (line.contains("StreamThread.run")) {
          stream += count;
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return all == 0 ? 0 : (double) stream / all;
  }

  /**
   * Prints each stage's CPU per input event: its share of the stream threads' samples times the
   * stream threads' share of the process's CPU per event. {@code EventDedupProcessor} is the class
   * of the Service Bus dedup stage; post-merge runs inside {@code MergeProcessor} and counts there.
   */
  static void print(Path collapsed, double appCpuMicrosPerEvent) {
    double streamShare = streamThreadShare(collapsed);
    System.out.printf(
        "  CPU per input event by stage (stream threads: %.0f%% of the process's CPU)%n",
        streamShare * 100);
    shares(collapsed)
        .forEach(
            (stage, share) ->
                System.out.printf(
                    "    %-32s %5.1f%%  %7.1f µs%n",
                    stage, share * 100, share * streamShare * appCpuMicrosPerEvent));
  }

  /** The stage classes a device event passes through, in order. */
  static final List<String> DEVICE_PATH =
      List.of("EventDedupProcessor", "DeviceSessionProcessor", "SessionMergeInputProcessor");
}
