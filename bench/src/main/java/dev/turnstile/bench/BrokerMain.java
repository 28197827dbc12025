package dev.turnstile.bench;

import dev.turnstile.testkit.EmbeddedKafka;
import java.io.IOException;
import java.nio.file.Path;

/**
 * A single-node KRaft broker in its own JVM, so that the candidates measured do not share a heap or
 * a JIT with it. Prints {@code BOOTSTRAP host:port} once ready, stops when its standard input
 * closes (the harness dies, the broker goes too).
 */
public final class BrokerMain {

  public static void main(String[] args) throws IOException {
    Path dir = Path.of(args[0]);
    try (EmbeddedKafka kafka = EmbeddedKafka.start(dir)) {
      System.out.println("BOOTSTRAP " + kafka.bootstrapServers());
      System.out.flush();
      while (System.in.read() >= 0) {
        // wait for the harness to close our stdin
      }
    }
  }

  private BrokerMain() {}
}
