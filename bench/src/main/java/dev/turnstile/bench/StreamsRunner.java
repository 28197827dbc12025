package dev.turnstile.bench;

import dev.turnstile.topology.config.TopologyConfig;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.streams.KafkaStreams;

/**
 * Child JVM: runs one {@link StreamsCandidate} until its standard input closes. Prints {@code
 * STARTED} once the client is started; the harness measures from there by the group's committed
 * offsets, so start-up and restore are outside the measured window only as far as they precede the
 * first commit.
 *
 * <p>Arguments: candidate label, then {@code key=value} topology configuration entries. Entries
 * written {@code warmup:key=value} ask for a <em>warm-up pass</em> first: the same candidate, with
 * the configuration those entries override (its own application id, state directory and topic
 * prefix), started before the measured one so that the JIT has compiled the candidate's code path
 * when the measured pass begins. The exchange with the harness is then:
 *
 * <ol>
 *   <li>the runner starts the warm-up pass and prints {@code WARMUP-STARTED};
 *   <li>once the warm-up pass has processed its input, the harness writes {@code measure}: the
 *       runner closes the warm-up client (it must reach {@code NOT_RUNNING}, else the runner
 *       fails), collects the garbage it left, and prints {@code WARMED <ms the close took>};
 *   <li>the harness reads its figures, writes {@code start}: the runner starts the measured pass
 *       (and the profiler, when asked: {@link Profiler#startWhenAsked()}) and prints {@code
 *       STARTED}.
 * </ol>
 */
public final class StreamsRunner {

  /** Marks an argument as an entry of the warm-up pass's configuration. */
  static final String WARMUP = "warmup:";

  public static void main(String[] args) throws Exception {
    StreamsCandidate candidate = StreamsCandidate.of(args[0]);
    Map<String, String> values = new HashMap<>();
    Map<String, String> warmup = new HashMap<>();
    for (int i = 1; i < args.length; i++) {
      String arg = args[i];
      Map<String, String> into = values;
      if (arg.startsWith(WARMUP)) {
        arg = arg.substring(WARMUP.length());
        into = warmup;
      }
      int eq = arg.indexOf('=');
      into.put(arg.substring(0, eq), arg.substring(eq + 1));
    }
    BufferedReader commands =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    if (!warmup.isEmpty()) {
      Map<String, String> warmupValues = new HashMap<>(values);
      warmupValues.putAll(warmup);
      if (!warmUp(candidate, TopologyConfig.of(warmupValues), commands)) {
        return;
      }
    }
    TopologyConfig config = TopologyConfig.of(values);
    Runnable stopProfiling = Profiler.startWhenAsked();
    try (StreamsCandidate.Running running = candidate.start(config)) {
      say("STARTED");
      while (commands.readLine() != null) {
        // run until the harness closes our stdin
      }
      stopProfiling.run();
    }
    say("STOPPED");
  }

  /**
   * Runs the warm-up pass until the harness says {@code measure}, closes it, then waits for {@code
   * start}.
   *
   * @return false when the harness closed our stdin instead
   */
  private static boolean warmUp(
      StreamsCandidate candidate, TopologyConfig config, BufferedReader commands) throws Exception {
    StreamsCandidate.Running warming = candidate.start(config);
    String measure;
    long closing;
    try {
      say("WARMUP-STARTED");
      measure = commands.readLine();
    } finally {
      closing = System.nanoTime();
      warming.close();
    }
    if (measure == null) {
      return false;
    }
    if (warming.state() != KafkaStreams.State.NOT_RUNNING) {
      throw new IllegalStateException(
          "the warm-up pass did not close cleanly: its client is " + warming.state());
    }
    long closeMillis = (System.nanoTime() - closing) / 1_000_000;
    // Its records, stores' buffers and clients are garbage now: collected here, not in the
    // measured window.
    System.gc();
    say("WARMED " + closeMillis);
    return commands.readLine() != null;
  }

  private static void say(String line) {
    System.out.println(line);
    System.out.flush();
  }

  private StreamsRunner() {}
}
