package dev.turnstile.topology;

import dev.turnstile.runtime.cli.ExitCode;
import dev.turnstile.runtime.cli.ProcessCommandLine;
import dev.turnstile.topology.config.TopologyConfig;
import dev.turnstile.topology.config.TopologyConfigModel;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the topology against an existing Kafka: {@code turnstile-topology [--config FILE]
 * [--check-config] [--help]}. Exit codes are {@link ExitCode}'s: 2 for a bad command line or
 * configuration (one line per key, no stack trace) or a key that cannot work (an unwritable state
 * directory, a transaction timeout the broker refuses), 3 when the topics are not as declared, 1
 * when Kafka Streams failed or cannot start (its state directory locked by another process, the
 * HTTP port taken); each start-up failure is logged as one ERROR line that names the cause and the
 * key to change (see {@link ExitReason}). After SIGTERM it drains and the JVM ends with 143.
 */
public final class TopologyMain {

  private static final Logger LOG = LoggerFactory.getLogger(TopologyMain.class);

  static final String DESCRIPTION =
      "Turnstile topology: Kafka Streams, exactly_once_v2: dedup, device sessions, merge and"
          + " post-merge, from the raw topics to the outputs downstream teams read.";

  private TopologyMain() {}

  public static void main(String[] args) throws InterruptedException {
    System.exit(
        run(
            args,
            System.getenv(),
            new PrintWriter(System.out, true, StandardCharsets.UTF_8),
            new PrintWriter(System.err, true, StandardCharsets.UTF_8)));
  }

  /**
   * Parses the command line and environment, starts the process and waits until it must end; the
   * exit code for the JVM. A failure to start is logged at ERROR as its {@link ExitReason}: the
   * cause and the key to change.
   */
  static int run(String[] args, Map<String, String> env, PrintWriter out, PrintWriter err)
      throws InterruptedException {
    ProcessCommandLine.Outcome<TopologyConfig> parsed =
        new ProcessCommandLine<>(
                TopologyConfigModel.MODEL, DESCRIPTION, settings -> TopologyConfig.of(settings))
            .parse(args, env, out, err);
    if (!parsed.run()) {
      return parsed.exitCode();
    }
    TopologyConfig config = parsed.config();
    LOG.info("starting with {}", config);
    TopologyProcess process;
    try {
      process = TopologyProcess.start(config);
    } catch (RuntimeException e) {
      ExitReason why = ExitReason.of(e, config);
      LOG.error("{}; exiting with code {}", why.message(), why.exitCode(), e);
      return why.exitCode();
    }
    LOG.info(
        "HTTP on port {} (advertised to the other instances as {}): /health/live /health/ready"
            + " /metrics /api/v1/devices/{deviceId}/sessions /api/v1/merge/{mergeKey}",
        process.healthPort(),
        process.advertisedServer());
    Thread shutdown = new Thread(process::close, "topology-shutdown");
    Runtime.getRuntime().addShutdownHook(shutdown);
    int code = process.awaitExit();
    process.close();
    try {
      Runtime.getRuntime().removeShutdownHook(shutdown);
    } catch (IllegalStateException stopping) {
      // SIGTERM: the hook is running or ran; the JVM ends with 143 once it is done.
    }
    return code;
  }
}
