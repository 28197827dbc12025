package dev.turnstile.local;

import dev.turnstile.bridge.BridgeApplication;
import dev.turnstile.bridge.application.auth.DeviceCredential;
import dev.turnstile.bridge.application.auth.DeviceCredential.Issued;
import dev.turnstile.bridge.config.BridgeConfigLoader;
import dev.turnstile.local.logging.KnownBenignLogFilter;
import dev.turnstile.schemas.Generation;
import dev.turnstile.schemas.Topic;
import dev.turnstile.schemas.TopicCatalogue;
import dev.turnstile.testkit.EmbeddedKafka;
import dev.turnstile.testkit.servicebus.ServiceBusDouble;
import dev.turnstile.topology.TopologyApplication;
import dev.turnstile.topology.TopologyServer;
import dev.turnstile.topology.config.TopologyConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.NewTopic;

/**
 * Turnstile on one machine: a real in-process KRaft Kafka, the topology and the bridge, with all
 * data in a temporary folder that {@link #close()} deletes. Device authentication is on, as in
 * production: the stack issues one fleet token ({@link #deviceToken()}) for the devices it replays.
 */
final class LocalStack implements AutoCloseable {

  private static final String CREDENTIALS_FILE = "device-credentials";

  /** The bridge's device credentials file: add a line to it and the bridge reloads it. */
  Path credentialsFile() {
    return home.resolve(CREDENTIALS_FILE);
  }

  /** The Service Bus queue the back office publishes billing messages to. */
  static final String BILLING_QUEUE = "billing";

  /** What a billing message's body must match; a message that does not is dead-lettered. */
  static final String BILLING_SCHEMA = BillingPublisher.BODY_SCHEMA;

  private final Path home;
  private final EmbeddedKafka kafka;
  private final ServiceBusDouble serviceBus;
  private final TopologyServer topology;
  private final Deque<TopologyServer> generations = new ArrayDeque<>();
  private final BridgeApplication bridge;
  private final String deviceToken;

  private LocalStack(
      Path home,
      EmbeddedKafka kafka,
      ServiceBusDouble serviceBus,
      TopologyServer topology,
      BridgeApplication bridge,
      String deviceToken) {
    this.home = home;
    this.kafka = kafka;
    this.serviceBus = serviceBus;
    this.topology = topology;
    this.bridge = bridge;
    this.deviceToken = deviceToken;
  }

  /** Starts one topology of the stack (a generation) with {@code values}, and waits for it. */
  private static TopologyServer startTopology(Map<String, String> values)
      throws InterruptedException {
    return TopologyServer.start(TopologyConfig.of(values), Duration.ofSeconds(60));
  }

  /** The stack's own topology settings: its Kafka, state under the stack's folder, local HTTP. */
  private static Map<String, String> topologyDefaults(EmbeddedKafka kafka, Path home) {
    Map<String, String> values = new HashMap<>();
    values.put("kafka.bootstrap.servers", kafka.bootstrapServers());
    values.put("topology.state-dir", home.resolve("streams").toString());
    values.put("topology.num-standby-replicas", "0");
    values.put("topology.punctuate-interval-ms", "1000");
    values.put("topology.http.host", "127.0.0.1");
    values.put("topology.http.port", "0");
    return values;
  }

  /**
   * Starts another generation of the topology beside the running ones (docs/changing-a-rule.md):
   * creates its output topics and runs it, reading the raw topics from their earliest offset;
   * {@link #close()} stops it with the stack.
   *
   * @param overrides topology keys on top of the stack's own (the rule it changes, its HTTP port)
   */
  TopologyServer startGeneration(Generation generation, Map<String, String> overrides)
      throws InterruptedException {
    if (generation.isDefault()) {
      throw new IllegalArgumentException("the generation without a name runs already");
    }
    kafka.createTopics(
        Generation.outputs().stream().map(t -> newTopic(t, generation.topicName(t, ""))).toList());
    Map<String, String> values = topologyDefaults(kafka, home);
    values.putAll(forProcess(overrides, "topology."));
    values.put("topology.generation", generation.name());
    TopologyServer started = startTopology(values);
    synchronized (generations) {
      generations.push(started);
    }
    return started;
  }

  /**
   * Starts Kafka, creates the catalogue's topics (replication factor 1), starts the topology and
   * waits for it to run, then the Service Bus double and the bridge on {@code httpPort} (0 = any
   * free port). What was started is stopped again if a later step fails.
   *
   * @param overrides configuration on top of the stack's own, for both processes; an empty value
   *     unsets one of the stack's bridge keys (say, the billing queue's body schema)
   * @throws IllegalArgumentException when {@code httpPort} is taken, before anything starts
   */
  static LocalStack start(int httpPort, Map<String, String> overrides) throws InterruptedException {
    requireFree(httpPort, "--port");
    String topologyPort = overrides.get("topology.http.port");
    if (topologyPort != null) {
      requireFree(Integer.parseInt(topologyPort), "--topology-port");
    }
    Path home;
    try {
      home = Files.createTempDirectory(KnownBenignLogFilter.LOCAL_STACK_HOME_PREFIX);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Deque<AutoCloseable> started = new ArrayDeque<>();
    try {
      EmbeddedKafka kafka = EmbeddedKafka.start(home.resolve("kafka"));
      started.push(kafka);
      kafka.createTopics(TopicCatalogue.ALL.stream().map(LocalStack::newTopic).toList());

      Map<String, String> topologyValues = topologyDefaults(kafka, home);
      topologyValues.putAll(forProcess(overrides, "topology."));
      TopologyServer topology = startTopology(topologyValues);
      started.push(topology);

      ServiceBusDouble serviceBus = ServiceBusDouble.start();
      started.push(serviceBus);
      serviceBus.createQueue(BILLING_QUEUE);

      Map<String, String> bridgeValues = new HashMap<>();
      bridgeValues.put("kafka.bootstrap.servers", kafka.bootstrapServers());
      bridgeValues.put("bridge.http.host", "127.0.0.1");
      bridgeValues.put("bridge.http.port", Integer.toString(httpPort));
      bridgeValues.putAll(serviceBusEntity(serviceBus));
      Issued fleet = DeviceCredential.issue("*");
      Path credentials = home.resolve(CREDENTIALS_FILE);
      // owner-only, like the files `turnstile device-token --append` creates
      Files.createFile(
          credentials,
          java.nio.file.attribute.PosixFilePermissions.asFileAttribute(
              java.nio.file.attribute.PosixFilePermissions.fromString("rw-------")));
      Files.writeString(
          credentials,
          "# the local stack's fleet credential: one token for every device\n"
              + fleet.credential().line()
              + "\n");
      bridgeValues.put("bridge.auth.credentials-file", credentials.toString());
      bridgeValues.putAll(forProcess(overrides, "bridge."));
      bridgeValues.values().removeIf(String::isEmpty);
      BridgeApplication bridge = BridgeApplication.start(BridgeConfigLoader.fromMap(bridgeValues));
      return new LocalStack(home, kafka, serviceBus, topology, bridge, fleet.token());
    } catch (IOException e) {
      started.forEach(LocalStack::closeQuietly);
      deleteQuietly(home);
      throw new UncheckedIOException(e);
    } catch (RuntimeException | InterruptedException e) {
      started.forEach(LocalStack::closeQuietly);
      deleteQuietly(home);
      throw e;
    }
  }

  /**
   * The overrides meant for one process: its own keys ({@code bridge.*} and {@code
   * kafka.producer.*}, or {@code topology.*} and {@code kafka.streams.*}) and the shared ones
   * ({@code kafka.*}, {@code topic.prefix}); each process refuses the other's keys as unknown.
   */
  static Map<String, String> forProcess(Map<String, String> overrides, String ownPrefix) {
    Map<String, String> mine = new HashMap<>();
    overrides.forEach(
        (key, value) -> {
          String owner =
              key.startsWith("bridge.") || key.startsWith("kafka.producer.")
                  ? "bridge."
                  : key.startsWith("topology.") || key.startsWith("kafka.streams.")
                      ? "topology."
                      : ownPrefix;
          if (owner.equals(ownPrefix)) {
            mine.put(key, value);
          }
        });
    return mine;
  }

  private static void requireFree(int port, String option) {
    if (port == 0) {
      return;
    }
    try (ServerSocket probe = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
      probe.setReuseAddress(true);
    } catch (IOException e) {
      throw new IllegalArgumentException(
          "port "
              + port
              + " on 127.0.0.1 is in use (another ./turnstile up?); choose another"
              + " with "
              + option);
    }
  }

  private static void closeQuietly(AutoCloseable closeable) {
    try {
      closeable.close();
    } catch (Exception e) {
      // Already failing: the first error is the one worth reporting.
    }
  }

  private static void deleteQuietly(Path home) {
    try (Stream<Path> files = Files.walk(home)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // A leftover temporary folder is not worth failing the run for.
    }
  }

  /** The bridge reads the billing queue of the double, keyed and merge-keyed by session id. */
  private static Map<String, String> serviceBusEntity(ServiceBusDouble serviceBus) {
    return Map.of(
        "bridge.servicebus.connection-string",
        serviceBus.connectionString(),
        "bridge.servicebus.local-mode",
        "true",
        "bridge.servicebus.entities",
        BILLING_QUEUE,
        "bridge.servicebus.entity." + BILLING_QUEUE + ".queue",
        BILLING_QUEUE,
        "bridge.servicebus.entity." + BILLING_QUEUE + ".key",
        "property:" + BillingPublisher.MERGE_KEY_PROPERTY,
        "bridge.servicebus.entity." + BILLING_QUEUE + ".max-concurrent-calls",
        "8",
        "bridge.servicebus.entity." + BILLING_QUEUE + ".schema",
        BILLING_SCHEMA);
  }

  static NewTopic newTopic(Topic topic) {
    return newTopic(topic, topic.baseName());
  }

  /** {@code topic} under {@code name}, on the stack's one broker. */
  static NewTopic newTopic(Topic topic, String name) {
    NewTopic created = new NewTopic(name, topic.partitions(), (short) 1);
    return created.configs(
        Map.of(
            "cleanup.policy", topic.cleanupPolicy(),
            "retention.ms", Long.toString(topic.retentionMs())));
  }

  String bootstrapServers() {
    return kafka.bootstrapServers();
  }

  EmbeddedKafka kafka() {
    return kafka;
  }

  BridgeApplication bridge() {
    return bridge;
  }

  ServiceBusDouble serviceBus() {
    return serviceBus;
  }

  /** The topology's HTTP port: probes, metrics and the queries. */
  int topologyHealthPort() {
    return topology.httpPort();
  }

  int httpPort() {
    return bridge.httpPort();
  }

  /**
   * The bearer token the bridge accepts for every device: the stack provisions one fleet credential
   * ({@code *}) in its credentials file, as {@code turnstile device-token '*'} would.
   */
  String deviceToken() {
    return deviceToken;
  }

  TopologyApplication topology() {
    return topology.application();
  }

  TopologyConfig topologyConfig() {
    return topology.config();
  }

  @Override
  public void close() {
    bridge.close();
    serviceBus.close();
    synchronized (generations) {
      generations.forEach(TopologyServer::close);
    }
    topology.close();
    kafka.close();
    deleteQuietly(home);
  }
}
