package dev.turnstile.topology;

import dev.turnstile.runtime.cli.ExitCode;
import dev.turnstile.runtime.cli.ProcessCommandLine;
import dev.turnstile.topology.config.ConfigValues;
import dev.turnstile.topology.config.TopologyConfig;
import dev.turnstile.topology.config.TopologyConfigModel;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the topology against an existing Kafka: {@code turnstile-topology [--config FILE]
 * [--check-config] [--help]}. Exit codes are {@link ExitCode}'s: 2 for a bad command line or
 * configuration (one line per key, no stack trace), 3 when the topics are not as declared, 1 when
 * Kafka Streams failed; after SIGTERM it drains and the JVM ends with 143.
 */
public final class TopologyMain {

  private static final Logger LOG = LoggerFactory.getLogger(TopologyMain.class);

  static final String DESCRIPTION =
      "Turnstile topology: Kafka Streams, exactly_once_v2: dedup, device sessions, merge and"
          + " post-merge, from the raw topics to the outputs downstream teams read.";

  private TopologyMain() {}

  public static void main(String[] args) throws InterruptedException {
    ProcessCommandLine.Outcome<TopologyConfig> parsed =
        new ProcessCommandLine<>(
                TopologyConfigModel.MODEL,
                DESCRIPTION,
                settings -> TopologyConfig.from(ConfigValues.of(settings)))
            .parse(
                args,
                System.getenv(),
                new PrintWriter(System.out, true, StandardCharsets.UTF_8),
                new PrintWriter(System.err, true, StandardCharsets.UTF_8));
    if (!parsed.run()) {
      System.exit(parsed.exitCode());
    }
    TopologyConfig config = parsed.config();
    LOG.info("starting with {}", config);
    TopologyProcess process = TopologyProcess.start(config);
    LOG.info(
        "HTTP on port {} (advertised to the other instances as {}): /health/live /health/ready"
            + " /metrics /api/v1/devices/{deviceId}/sessions /api/v1/merge/{mergeKey}",
        process.healthPort(),
        process.advertisedServer());
    Runtime.getRuntime().addShutdownHook(new Thread(process::close, "topology-shutdown"));
    int code = process.awaitExit();
    process.close();
    System.exit(code);
  }
}
