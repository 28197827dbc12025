package dev.turnstile.faults;

import dev.turnstile.bridge.application.auth.DeviceCredential;
import dev.turnstile.local.BillingPublisher;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Turnstile's two processes as a platform runs them: the bridge and {@code n} topology instances,
 * each an OS process started from its distribution ({@code bridge/target/turnstile-bridge}, {@code
 * topology/target/turnstile-topology}: {@code bin/} + {@code lib/}), configured by a properties
 * file ({@code --config}) and, for the secret, the environment. Every start of a process uses the
 * same ports and, for a topology instance, the same state directory, as a restarted pod on the same
 * node would.
 */
final class Deployment implements AutoCloseable {

  /** The Service Bus queue the bridge reads billing messages from. */
  static final String BILLING_QUEUE = "billing";

  /** Topology settings that differ from the defaults in every run of the harness. */
  record TopologySettings(Duration maxSessionDuration, Duration punctuateInterval) {}

  private final Path repository;
  private final Path home;
  private final String serviceBusConnectionString;
  private final int bridgePort = Ports.free();
  private final List<Integer> topologyPorts = new ArrayList<>();
  private final List<Integer> topologyDebugPorts = new ArrayList<>();
  private final List<OsProcess> topologies = new ArrayList<>();
  private final DeviceCredential.Issued fleet = DeviceCredential.issue("*");
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
  private OsProcess bridge;

  Deployment(
      Path repository,
      Path home,
      KafkaCluster kafka,
      String serviceBusConnectionString,
      int topologyInstances,
      TopologySettings settings) {
    this.repository = repository;
    this.home = home;
    this.serviceBusConnectionString = serviceBusConnectionString;
    for (int i = 0; i < topologyInstances; i++) {
      topologyPorts.add(Ports.free());
      topologyDebugPorts.add(Ports.free());
      topologies.add(null);
    }
    // Device authentication stays on, as in production: one fleet credential for every device.
    write(
        "device-credentials",
        "# the fault harness's fleet credential: one token for every device\n"
            + fleet.credential().line()
            + "\n");
    write("bridge.properties", bridgeConfig(kafka));
    write("logback-bridge.xml", logback(false));
    write("logback-topology.xml", logback(true));
    for (int i = 0; i < topologyInstances; i++) {
      write("topology-" + (i + 1) + ".properties", topologyConfig(kafka, i, settings));
    }
  }

  /** The repository root holding both distributions, or an error saying how to build them. */
  static Path checkDistributions(Path repository) {
    for (String process : List.of("bridge", "topology")) {
      Path script = distribution(repository, process).resolve("bin/turnstile-" + process);
      if (!Files.isExecutable(script)) {
        throw new IllegalStateException(
            "no distribution at "
                + script
                + ": build them first (./mvnw -B -DskipTests package, or ./turnstile faults)");
      }
    }
    return repository;
  }

  private static Path distribution(Path repository, String process) {
    return repository.resolve(process).resolve("target").resolve("turnstile-" + process);
  }

  /** Creates the catalogue's topics with the topology distribution's {@code turnstile-topics}. */
  void createTopics(KafkaCluster kafka, int replicas) {
    OsProcess topics =
        OsProcess.start(
            "turnstile-topics",
            List.of(
                distribution(repository, "topology").resolve("bin/turnstile-topics").toString(),
                "--bootstrap",
                kafka.bootstrapServers(),
                "--replicas",
                Integer.toString(replicas)),
            Map.of("JAVA_OPTS", "-Xmx128m"),
            home.resolve("logs/topics.log"));
    if (!topics.awaitExit(Duration.ofMinutes(2))) {
      topics.kill();
      throw new IllegalStateException("turnstile-topics did not end; see " + topics.log());
    }
    if (topics.terminate(Duration.ZERO) != 0) {
      throw new IllegalStateException("turnstile-topics failed; see " + topics.log());
    }
  }

  void startBridge() {
    bridge =
        OsProcess.start(
            "bridge",
            List.of(
                distribution(repository, "bridge").resolve("bin/turnstile-bridge").toString(),
                "--config",
                home.resolve("bridge.properties").toString()),
            Map.of(
                "TURNSTILE_BRIDGE_SERVICEBUS_CONNECTION_STRING",
                serviceBusConnectionString,
                "JAVA_OPTS",
                "-Xms64m -Xmx256m",
                "LOGBACK_CONFIG",
                home.resolve("logback-bridge.xml").toString()),
            home.resolve("logs/bridge.log"));
  }

  /**
   * Starts topology instance {@code index} (0-based), on its own port and state directory, with a
   * JDWP agent on its own loopback port for {@link Breakpoint} ({@link #topologyDebugPort}).
   */
  void startTopology(int index) {
    topologies.set(
        index,
        OsProcess.start(
            topologyName(index),
            List.of(
                distribution(repository, "topology").resolve("bin/turnstile-topology").toString(),
                "--config",
                home.resolve("topology-" + (index + 1) + ".properties").toString()),
            Map.of(
                "JAVA_OPTS",
                "-Xms64m -Xmx384m " + Breakpoint.jvmOption(topologyDebugPorts.get(index)),
                "LOGBACK_CONFIG",
                home.resolve("logback-topology.xml").toString()),
            home.resolve("logs/" + topologyName(index) + ".log")));
  }

  static String topologyName(int index) {
    return "topology-" + (index + 1);
  }

  OsProcess bridge() {
    return bridge;
  }

  OsProcess topology(int index) {
    return topologies.get(index);
  }

  int topologyCount() {
    return topologies.size();
  }

  /** The bearer token the bridge accepts for every device. */
  String deviceToken() {
    return fleet.token();
  }

  URI bridgeUri() {
    return URI.create("http://127.0.0.1:" + bridgePort);
  }

  int topologyPort(int index) {
    return topologyPorts.get(index);
  }

  /** The loopback port instance {@code index}'s JDWP agent listens on. */
  int topologyDebugPort(int index) {
    return topologyDebugPorts.get(index);
  }

  boolean bridgeReady() {
    return bridge != null && bridge.isAlive() && get(bridgePort, "/health/ready") == 200;
  }

  boolean topologyReady(int index) {
    OsProcess process = topologies.get(index);
    return process != null
        && process.isAlive()
        && get(topologyPorts.get(index), "/health/ready") == 200;
  }

  /** The instance's Prometheus text, or empty when it does not answer. */
  String topologyMetrics(int index) {
    try {
      HttpResponse<String> response =
          http.send(
              HttpRequest.newBuilder(
                      URI.create("http://127.0.0.1:" + topologyPorts.get(index) + "/metrics"))
                  .timeout(Duration.ofSeconds(5))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      return response.statusCode() == 200 ? response.body() : "";
    } catch (IOException e) {
      return "";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "";
    }
  }

  private int get(int port, String path) {
    try {
      return http.send(
              HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                  .timeout(Duration.ofSeconds(3))
                  .build(),
              HttpResponse.BodyHandlers.discarding())
          .statusCode();
    } catch (IOException e) {
      return -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
  }

  private Map<String, String> bridgeConfig(KafkaCluster kafka) {
    Map<String, String> config = new LinkedHashMap<>();
    config.put("kafka.bootstrap.servers", kafka.bridgeBootstrapServers());
    config.put("bridge.http.host", "127.0.0.1");
    config.put("bridge.http.port", Integer.toString(bridgePort));
    config.put("bridge.http.retry-after-seconds", "1");
    config.put("bridge.kafka.readiness-interval-ms", "500");
    config.put("bridge.auth.credentials-file", home.resolve("device-credentials").toString());
    config.put("bridge.servicebus.local-mode", "true");
    config.put("bridge.servicebus.resume-check-interval-ms", "500");
    config.put("bridge.servicebus.entities", BILLING_QUEUE);
    String entity = "bridge.servicebus.entity." + BILLING_QUEUE + ".";
    config.put(entity + "queue", BILLING_QUEUE);
    config.put(entity + "key", "property:" + BillingPublisher.MERGE_KEY_PROPERTY);
    config.put(entity + "max-concurrent-calls", "16");
    config.put(entity + "schema", BillingPublisher.BODY_SCHEMA);
    return config;
  }

  private Map<String, String> topologyConfig(
      KafkaCluster kafka, int index, TopologySettings settings) {
    Map<String, String> config = new LinkedHashMap<>();
    config.put("kafka.bootstrap.servers", kafka.bootstrapServers());
    config.put("topology.state-dir", home.resolve(topologyName(index) + "-state").toString());
    config.put("topology.num-standby-replicas", "1");
    config.put("topology.http.host", "127.0.0.1");
    config.put("topology.http.port", Integer.toString(topologyPorts.get(index)));
    config.put(
        "topology.session.max-duration-ms",
        Long.toString(settings.maxSessionDuration().toMillis()));
    config.put(
        "topology.punctuate-interval-ms", Long.toString(settings.punctuateInterval().toMillis()));
    config.put("topology.topics.check-interval-ms", "2000");
    config.put("kafka.streams.turnstile.rocksdb.total.bytes", Integer.toString(64 << 20));
    return config;
  }

  /**
   * The distributions' own logging, plus, for the topology, Kafka Streams' account of each restore
   * (the harness waits for it to kill an instance during a restore); dropped duplicates at WARN: a
   * line each would fill the logs of a long run.
   */
  private static String logback(boolean topology) {
    String restore =
        topology
            ? "  <logger name=\"org.apache.kafka.streams.processor.internals.StoreChangelogReader\""
                + " level=\"INFO\"/>\n"
            : "";
    return """
        <configuration>
          <appender name="STDOUT" class="ch.qos.logback.core.ConsoleAppender">
            <encoder><pattern>%d{HH:mm:ss.SSS} %-5level [%thread] %logger{36} - %msg%n</pattern></encoder>
          </appender>
          <logger name="org.apache.kafka" level="WARN"/>
          <logger name="dev.turnstile.topology.ExportedKafkaStreams" level="WARN"/>
          <logger name="com.azure" level="WARN"/>
          <logger name="io.netty" level="WARN"/>
          <logger name="dev.turnstile.duplicates" level="WARN"/>
        """
        + restore
        + """
          <root level="INFO"><appender-ref ref="STDOUT"/></root>
        </configuration>
        """;
  }

  private void write(String name, Map<String, String> properties) {
    write(
        name,
        properties.entrySet().stream()
                .map(e -> e.getKey() + "=" + e.getValue())
                .collect(Collectors.joining("\n"))
            + "\n");
  }

  private void write(String name, String text) {
    try {
      Files.createDirectories(home);
      Files.writeString(home.resolve(name), text, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void close() {
    List<OsProcess> all = new ArrayList<>(topologies);
    all.add(bridge);
    for (OsProcess process : all) {
      if (process != null && process.isAlive()) {
        process.signal(OsProcess.Signal.CONT);
        process.signal(OsProcess.Signal.TERM);
      }
    }
    for (OsProcess process : all) {
      if (process != null && !process.awaitExit(Duration.ofSeconds(45))) {
        process.kill();
      }
    }
  }
}
