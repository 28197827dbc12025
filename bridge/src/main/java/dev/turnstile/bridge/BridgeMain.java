package dev.turnstile.bridge;

import dev.turnstile.bridge.config.BridgeConfig;
import dev.turnstile.bridge.config.BridgeConfigLoader;
import dev.turnstile.bridge.config.BridgeConfigModel;
import dev.turnstile.runtime.cli.ProcessCommandLine;
import dev.turnstile.runtime.config.InvalidConfigurationException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;

/**
 * Runs the bridge: {@code turnstile-bridge [--config FILE] [--check-config] [--help]}.
 * Configuration from the file, then {@code TURNSTILE_*} environment variables (see {@link
 * BridgeConfigModel}); the Service Bus source runs when {@code bridge.servicebus.entities} is set.
 * SIGTERM drains (HTTP requests, then Service Bus callbacks, then Kafka writes) and stops. A
 * configuration problem ends it with exit code 2 and one line per key.
 */
public final class BridgeMain {

  static final String DESCRIPTION =
      "Turnstile bridge: device events over HTTP and Azure Service Bus messages onto Kafka"
          + " (acks=all, idempotent); a 2xx or a Service Bus complete only after Kafka's ack.";

  private BridgeMain() {}

  public static void main(String[] args) throws InterruptedException {
    ProcessCommandLine.Outcome<BridgeConfig> parsed =
        new ProcessCommandLine<>(BridgeConfigModel.MODEL, DESCRIPTION, BridgeConfigLoader::from)
            .parse(
                args,
                System.getenv(),
                new PrintWriter(System.out, true, StandardCharsets.UTF_8),
                new PrintWriter(System.err, true, StandardCharsets.UTF_8));
    if (!parsed.run()) {
      System.exit(parsed.exitCode());
    }
    BridgeApplication bridge;
    try {
      bridge = BridgeApplication.start(parsed.config());
    } catch (InvalidConfigurationException e) {
      // Files the configuration names (device credentials, HTTPS key material) are read here:
      // reported like every other configuration problem, exit 2.
      System.exit(
          ProcessCommandLine.configurationError(
              BridgeConfigModel.MODEL.program(),
              e,
              new PrintWriter(System.err, true, StandardCharsets.UTF_8)));
      return;
    }
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  bridge.close();
                  stopped.countDown();
                },
                "turnstile-bridge-shutdown"));
    stopped.await();
  }
}
