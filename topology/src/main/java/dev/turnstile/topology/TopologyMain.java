package dev.turnstile.topology;

import dev.turnstile.topology.adapter.http.HealthServer;
import dev.turnstile.topology.config.ConfigValues;
import dev.turnstile.topology.config.TopologyConfig;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Runs the topology against an existing Kafka: {@code TopologyMain [--config FILE]}. */
public final class TopologyMain {

  private static final Logger LOG = LoggerFactory.getLogger(TopologyMain.class);

  private TopologyMain() {}

  public static void main(String[] args) throws InterruptedException {
    Path file = args.length == 2 && args[0].equals("--config") ? Path.of(args[1]) : null;
    if (args.length != 0 && file == null) {
      System.err.println("usage: topology [--config FILE]");
      System.exit(2);
    }
    TopologyConfig config = TopologyConfig.from(ConfigValues.load(file, System.getenv()));
    LOG.info("starting with {}", config);
    TopologyApplication app = TopologyApplication.start(config);
    HealthServer health =
        HealthServer.start(
            config.httpHost(),
            config.httpPort(),
            app::live,
            app::ready,
            () -> app.state().name(),
            app::scrape);
    LOG.info("probes and metrics on port {}: /health/live /health/ready /metrics", health.port());
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  app.close();
                  health.close();
                  stopped.countDown();
                },
                "topology-shutdown"));
    stopped.await();
  }
}
