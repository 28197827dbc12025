package dev.turnstile.bench;

import dev.turnstile.bridge.BridgeApplication;
import dev.turnstile.bridge.config.BridgeConfigLoader;
import java.util.HashMap;
import java.util.Map;

/**
 * Child JVM: the Turnstile bridge as {@code ./turnstile bridge} runs it ({@link
 * BridgeApplication}), configured by {@code key=value} arguments. Prints {@code LISTENING <port>}
 * once it listens and stops (draining as on SIGTERM) when its standard input closes.
 */
public final class BridgeRunner {

  public static void main(String[] args) throws Exception {
    Map<String, String> values = new HashMap<>();
    for (String arg : args) {
      int eq = arg.indexOf('=');
      values.put(arg.substring(0, eq), arg.substring(eq + 1));
    }
    try (BridgeApplication bridge = BridgeApplication.start(BridgeConfigLoader.fromMap(values))) {
      System.out.println("LISTENING " + bridge.httpPort());
      System.out.flush();
      while (System.in.read() >= 0) {
        // run until the harness closes our stdin
      }
    }
  }

  private BridgeRunner() {}
}
