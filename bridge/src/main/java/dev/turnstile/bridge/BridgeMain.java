package dev.turnstile.bridge;

import dev.turnstile.bridge.config.BridgeConfig;
import dev.turnstile.bridge.config.BridgeConfigLoader;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;

/**
 * Runs the bridge: {@code BridgeMain [--config FILE]}. Configuration from the file, then {@code
 * TURNSTILE_*} environment variables (see {@link BridgeConfigLoader}); the Service Bus source runs
 * when {@code bridge.servicebus.entities} is set. SIGTERM drains (HTTP requests, then Service Bus
 * callbacks, then Kafka writes) and stops.
 */
public final class BridgeMain {

  private BridgeMain() {}

  public static void main(String[] args) throws InterruptedException {
    Path file = null;
    for (int i = 0; i < args.length; i++) {
      if ("--config".equals(args[i]) && i + 1 < args.length) {
        file = Path.of(args[++i]);
      } else {
        System.err.println("usage: BridgeMain [--config FILE]");
        System.exit(2);
      }
    }
    BridgeConfig config;
    try {
      config = BridgeConfigLoader.load(file);
    } catch (IllegalArgumentException e) {
      System.err.println("configuration error: " + e.getMessage());
      System.exit(2);
      return;
    }
    BridgeApplication bridge = BridgeApplication.start(config);
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
