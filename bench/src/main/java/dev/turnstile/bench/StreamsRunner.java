package dev.turnstile.bench;

import dev.turnstile.topology.config.TopologyConfig;
import java.util.HashMap;
import java.util.Map;

/**
 * Child JVM: runs one {@link StreamsCandidate} until its standard input closes. Prints {@code
 * STARTED} once the client is started; the harness measures from there by the group's committed
 * offsets, so start-up and restore are outside the measured window only as far as they precede the
 * first commit.
 *
 * <p>Arguments: candidate label, then {@code key=value} topology configuration entries.
 */
public final class StreamsRunner {

  public static void main(String[] args) throws Exception {
    StreamsCandidate candidate = StreamsCandidate.of(args[0]);
    Map<String, String> values = new HashMap<>();
    for (int i = 1; i < args.length; i++) {
      int eq = args[i].indexOf('=');
      values.put(args[i].substring(0, eq), args[i].substring(eq + 1));
    }
    TopologyConfig config = TopologyConfig.of(values);
    try (AutoCloseable running = candidate.start(config)) {
      System.out.println("STARTED");
      System.out.flush();
      while (System.in.read() >= 0) {
        // run until the harness closes our stdin
      }
    }
    System.out.println("STOPPED");
    System.out.flush();
  }

  private StreamsRunner() {}
}
