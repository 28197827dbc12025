package dev.turnstile.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * The Strimzi HTTP Bridge, the benchmark's side-by-side candidate, started from its own build (its
 * distribution folder: {@code libs/}, {@code config/}) on the JDK it needs (21 or newer), in its
 * own process against the benchmark's broker. Nothing of it is part of Turnstile: the harness only
 * runs what the user built (docs/testing.md, "Benchmarks").
 *
 * <p>Configuration: producer only ({@code http.consumer.enabled=false}), {@code
 * kafka.producer.acks=all}, idempotence on, every other producer setting Strimzi's default; logs at
 * WARN (its INFO logs one line per request, which would tax it unfairly).
 */
final class StrimziBridge implements AutoCloseable {

  /** Its producer settings, stated in the report. */
  static final String PRODUCER_SETTINGS =
      "kafka.producer.acks=all, kafka.producer.enable.idempotence=true, other producer settings"
          + " Strimzi's defaults; one Kafka producer per HTTP connection (Strimzi's design)";

  private final ChildJvm process;
  private final int port;

  private StrimziBridge(ChildJvm process, int port) {
    this.process = process;
    this.port = port;
  }

  /**
   * @param home the unpacked distribution, holding {@code libs/}
   * @param java the {@code java} executable to run it with (21 or newer)
   */
  static StrimziBridge start(Path home, String java, String bootstrap, Path workDir) {
    if (!Files.isDirectory(home.resolve("libs"))) {
      throw new IllegalArgumentException(
          home
              + " is not a Strimzi HTTP Bridge distribution (no libs/ folder); see docs/testing.md, \"Benchmarks\"");
    }
    int port = freePort();
    int management = freePort();
    try {
      Files.createDirectories(workDir);
      Path config = workDir.resolve("strimzi-bridge.properties");
      Files.writeString(
          config,
          String.join(
              "\n",
              "bridge.id=bench-strimzi",
              "kafka.bootstrap.servers=" + bootstrap,
              "kafka.producer.acks=all",
              "kafka.producer.enable.idempotence=true",
              "http.host=127.0.0.1",
              "http.port=" + port,
              "http.management.port=" + management,
              "http.cors.enabled=false",
              "http.consumer.enabled=false",
              "http.producer.enabled=true",
              ""));
      Path log4j = workDir.resolve("strimzi-log4j2.properties");
      Files.writeString(
          log4j,
          String.join(
              "\n",
              "appender.console.type = Console",
              "appender.console.name = STDOUT",
              "appender.console.layout.type = PatternLayout",
              "appender.console.layout.pattern = %d %-5p [%t] %c{1} - %m%n",
              "rootLogger.level = WARN",
              "rootLogger.appenderRef.console.ref = STDOUT",
              ""));
      ChildJvm process =
          ChildJvm.startProgram(
              List.of(
                  java,
                  "-Xmx1g",
                  "-Dvertx.cacheDirBase=" + workDir.resolve("vertx-cache"),
                  "-Dlog4j2.configurationFile=file:" + log4j,
                  "-cp",
                  home.resolve("libs") + "/*",
                  "io.strimzi.kafka.bridge.Application",
                  "--config-file=" + config),
              workDir.resolve("strimzi-bridge.log"));
      awaitReady(process, management, workDir.resolve("strimzi-bridge.log"));
      return new StrimziBridge(process, port);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  int port() {
    return port;
  }

  long cpuNanos() {
    return process.cpuNanos();
  }

  long compilerCpuNanos() {
    return process.compilerCpuNanos();
  }

  private static void awaitReady(ChildJvm process, int management, Path log) {
    HttpClient client = HttpClient.newHttpClient();
    long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
    while (System.nanoTime() < deadline) {
      if (!process.alive()) {
        throw new IllegalStateException("the Strimzi bridge exited; its log: " + log);
      }
      try {
        HttpResponse<Void> ready =
            client.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + management + "/ready"))
                    .timeout(Duration.ofSeconds(2))
                    .build(),
                HttpResponse.BodyHandlers.discarding());
        if (ready.statusCode() / 100 == 2) {
          return;
        }
      } catch (IOException notYet) {
        // not listening yet
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted", e);
      }
      Broker.pause();
    }
    throw new IllegalStateException("the Strimzi bridge was not ready in time; its log: " + log);
  }

  static int freePort() {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void close() {
    process.terminate();
  }
}
