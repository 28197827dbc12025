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
 * written {@code warmup:key=value} ask for <em>warm-up passes</em> first: the same candidate, with
 * the configuration those entries override (its own state directory and topic prefix), run before
 * the measured one so that the JIT has compiled the candidate's code path when the measured pass
 * begins. The runner then takes commands on its standard input, one per line:
 *
 * <ul>
 *   <li>{@code warmup <application id>}: starts a warm-up pass under that application id, prints
 *       {@code WARMUP-STARTED};
 *   <li>{@code close}: closes it (it must reach {@code NOT_RUNNING}, else the runner fails),
 *       collects the garbage it left, prints {@code WARMED <ms the close took>};
 *   <li>{@code start}: starts the measured pass (and the profiler, when asked: {@link
 *       Profiler#startWhenAsked()}), prints {@code STARTED}.
 * </ul>
 */
public final class StreamsRunner {

  /** Marks an argument as an entry of the warm-up passes' configuration. */
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
    if (!warmup.isEmpty() && !warmUp(candidate, values, warmup, commands)) {
      return;
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
   * Runs warm-up passes as the harness asks, until it says {@code start}.
   *
   * @return false when the harness closed our stdin instead
   */
  private static boolean warmUp(
      StreamsCandidate candidate,
      Map<String, String> values,
      Map<String, String> warmup,
      BufferedReader commands)
      throws Exception {
    StreamsCandidate.Running warming = null;
    try {
      for (String command = commands.readLine(); command != null; command = commands.readLine()) {
        if (command.startsWith("warmup ")) {
          Map<String, String> pass = new HashMap<>(values);
          pass.putAll(warmup);
          pass.put("topology.application-id", command.substring("warmup ".length()).trim());
          warming = candidate.start(TopologyConfig.of(pass));
          say("WARMUP-STARTED");
        } else if (command.equals("close") && warming != null) {
          long closing = System.nanoTime();
          warming.close();
          if (warming.state() != KafkaStreams.State.NOT_RUNNING) {
            throw new IllegalStateException(
                "a warm-up pass did not close cleanly: its client is " + warming.state());
          }
          warming = null;
          long closeMillis = (System.nanoTime() - closing) / 1_000_000;
          // Its records, stores' buffers and clients are garbage now: collected here, not in the
          // measured window.
          System.gc();
          say("WARMED " + closeMillis);
        } else if (command.equals("start") && warming == null) {
          return true;
        } else {
          throw new IllegalStateException("unexpected command: " + command);
        }
      }
      return false;
    } finally {
      if (warming != null) {
        warming.close();
      }
    }
  }

  private static void say(String line) {
    System.out.println(line);
    System.out.flush();
  }

  private StreamsRunner() {}
}
