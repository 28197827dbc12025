package dev.turnstile.topology;

import dev.turnstile.runtime.cli.ExitCode;
import dev.turnstile.topology.config.ConfigValues;
import dev.turnstile.topology.config.TopologyConfig;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the topology against an existing Kafka: {@code TopologyMain [--config FILE]}. Exit codes are
 * {@link ExitCode}'s: 2 for bad configuration, 3 when the topics are not as declared, 1 when Kafka
 * Streams failed, 0 after SIGTERM.
 */
public final class TopologyMain {

  private static final Logger LOG = LoggerFactory.getLogger(TopologyMain.class);

  private TopologyMain() {}

  public static void main(String[] args) throws InterruptedException {
    Path file = args.length == 2 && args[0].equals("--config") ? Path.of(args[1]) : null;
    if (args.length != 0 && file == null) {
      System.err.println("usage: topology [--config FILE]");
      System.exit(ExitCode.CONFIG);
    }
    TopologyConfig config;
    try {
      config = TopologyConfig.from(ConfigValues.load(file, System.getenv()));
    } catch (IllegalArgumentException e) {
      System.err.println("configuration error: " + e.getMessage());
      System.exit(ExitCode.CONFIG);
      return;
    }
    LOG.info("starting with {}", config);
    TopologyProcess process = TopologyProcess.start(config);
    LOG.info(
        "probes and metrics on port {}: /health/live /health/ready /metrics", process.healthPort());
    Runtime.getRuntime().addShutdownHook(new Thread(process::close, "topology-shutdown"));
    int code = process.awaitExit();
    process.close();
    System.exit(code);
  }
}
