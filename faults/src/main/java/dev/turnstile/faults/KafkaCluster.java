package dev.turnstile.faults;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.TopicDescription;

/**
 * A KRaft cluster of {@code n} nodes, each its own OS process running Kafka's own {@code
 * kafka.Kafka} (broker and controller combined, as {@code controller.quorum.voters} lists them), so
 * a node can be stopped, killed with SIGKILL and started again on the same ports and data.
 *
 * <p>Each node has two client listeners: {@code INTERNAL}, used by the brokers among themselves,
 * the topology and the harness, and {@code BRIDGE}, advertised on the port of the node's {@link
 * TcpProxy}, so every connection of the bridge to any broker passes through a proxy the harness can
 * cut. With three nodes the internal topics and the catalogue's topics get three replicas and
 * {@code min.insync.replicas=2}: one node down is a real loss that writes survive.
 */
final class KafkaCluster implements AutoCloseable {

  /** One node's ports, directories and current process. */
  static final class Node {
    final int id;
    final int controllerPort;
    final int internalPort;
    final int bridgePort;
    final TcpProxy proxy;
    final Path config;
    OsProcess process;

    Node(int id, int controllerPort, int internalPort, int bridgePort, TcpProxy proxy, Path cfg) {
      this.id = id;
      this.controllerPort = controllerPort;
      this.internalPort = internalPort;
      this.bridgePort = bridgePort;
      this.proxy = proxy;
      this.config = cfg;
    }

    @Override
    public String toString() {
      return "kafka-" + id;
    }
  }

  private final Path home;
  private final List<Node> nodes;
  private final Admin admin;

  private KafkaCluster(Path home, List<Node> nodes) {
    this.home = home;
    this.nodes = nodes;
    Properties props = new Properties();
    props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
    props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 15_000);
    props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000);
    this.admin = Admin.create(props);
  }

  /**
   * Writes each node's {@code server.properties}, formats its storage with {@code
   * kafka.tools.StorageTool} and starts it; returns once every broker is registered.
   */
  static KafkaCluster start(Path home, int size) {
    List<Node> nodes = new ArrayList<>();
    int[] controllers = new int[size];
    for (int i = 0; i < size; i++) {
      controllers[i] = Ports.free();
    }
    String voters =
        java.util.stream.IntStream.range(0, size)
            .mapToObj(i -> (i + 1) + "@127.0.0.1:" + controllers[i])
            .collect(Collectors.joining(","));
    String clusterId = base64Uuid();
    int replicas = Math.min(3, size);
    for (int i = 0; i < size; i++) {
      int id = i + 1;
      int bridgePort = Ports.free();
      TcpProxy proxy = TcpProxy.start("kafka-" + id, bridgePort);
      Node node =
          new Node(
              id,
              controllers[i],
              Ports.free(),
              bridgePort,
              proxy,
              home.resolve("kafka-" + id + ".properties"));
      write(node, voters, replicas, home.resolve("kafka-" + id));
      nodes.add(node);
    }
    List<OsProcess> formats = new ArrayList<>();
    for (Node node : nodes) {
      formats.add(
          OsProcess.start(
              "format " + node,
              Java.command(
                  List.of("-Xmx128m"),
                  "kafka.tools.StorageTool",
                  List.of("format", "-t", clusterId, "-c", node.config.toString()),
                  home.resolve("logback-kafka.xml")),
              Map.of(),
              home.resolve("logs").resolve(node + ".log")));
    }
    for (OsProcess format : formats) {
      if (!format.awaitExit(Duration.ofMinutes(2))) {
        throw new IllegalStateException(format + " did not end; see " + format.log());
      }
    }
    KafkaCluster cluster = new KafkaCluster(home, nodes);
    nodes.forEach(cluster::startNode);
    cluster.awaitBrokers(size, Duration.ofMinutes(3));
    return cluster;
  }

  private static void write(Node node, String voters, int replicas, Path data) {
    String properties =
        String.join(
            "\n",
            "process.roles=broker,controller",
            "node.id=" + node.id,
            "controller.quorum.voters=" + voters,
            "listeners=INTERNAL://127.0.0.1:"
                + node.internalPort
                + ",BRIDGE://127.0.0.1:"
                + node.bridgePort
                + ",CONTROLLER://127.0.0.1:"
                + node.controllerPort,
            "advertised.listeners=INTERNAL://127.0.0.1:"
                + node.internalPort
                + ",BRIDGE://127.0.0.1:"
                + node.proxy.port(),
            "inter.broker.listener.name=INTERNAL",
            "controller.listener.names=CONTROLLER",
            "listener.security.protocol.map=INTERNAL:PLAINTEXT,BRIDGE:PLAINTEXT,"
                + "CONTROLLER:PLAINTEXT",
            "log.dirs=" + data,
            "default.replication.factor=" + replicas,
            "min.insync.replicas=" + Math.min(2, replicas),
            "offsets.topic.replication.factor=" + replicas,
            "offsets.topic.num.partitions=6",
            "transaction.state.log.replication.factor=" + replicas,
            "transaction.state.log.min.isr=" + Math.min(2, replicas),
            "transaction.state.log.num.partitions=6",
            "auto.create.topics.enable=false",
            "group.initial.rebalance.delay.ms=0",
            // Abort a timed-out transaction (and fence its producer) within a second of its
            // timeout, not up to 10 s later: a stopped topology instance is then fenced by the time
            // a pause a little past the transaction timeout ends.
            "transaction.abort.timed.out.transaction.cleanup.interval.ms=1000",
            "");
    try {
      Files.createDirectories(node.config.getParent());
      Files.writeString(node.config, properties, StandardCharsets.UTF_8);
      Path logback = node.config.getParent().resolve("logback-kafka.xml");
      if (!Files.exists(logback)) {
        Files.writeString(logback, Java.QUIET_LOGBACK, StandardCharsets.UTF_8);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String base64Uuid() {
    UUID uuid = UUID.randomUUID();
    java.nio.ByteBuffer bytes = java.nio.ByteBuffer.allocate(16);
    bytes.putLong(uuid.getMostSignificantBits()).putLong(uuid.getLeastSignificantBits());
    return java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(bytes.array());
  }

  /** Starts the node's process (again), same ports and data. */
  void startNode(Node node) {
    node.process =
        OsProcess.start(
            node.toString(),
            Java.command(
                List.of("-Xms128m", "-Xmx512m"),
                "kafka.Kafka",
                List.of(node.config.toString()),
                home.resolve("logback-kafka.xml")),
            Map.of(),
            home.resolve("logs").resolve(node + ".log"));
  }

  List<Node> nodes() {
    return nodes;
  }

  /** The {@code INTERNAL} listeners: brokers, topology, harness. */
  String bootstrapServers() {
    return nodes.stream().map(n -> "127.0.0.1:" + n.internalPort).collect(Collectors.joining(","));
  }

  /** The proxies in front of the {@code BRIDGE} listeners: the bridge's bootstrap. */
  String bridgeBootstrapServers() {
    return nodes.stream().map(n -> "127.0.0.1:" + n.proxy.port()).collect(Collectors.joining(","));
  }

  /** Cuts (or restores) every connection between the bridge and the brokers. */
  void cutBridge(boolean cut) {
    nodes.forEach(n -> n.proxy.cut(cut));
  }

  Admin admin() {
    return admin;
  }

  /** Waits until {@code count} brokers are registered and answering. */
  void awaitBrokers(int count, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      try {
        if (admin.describeCluster().nodes().get(5, TimeUnit.SECONDS).size() >= count) {
          return;
        }
      } catch (ExecutionException | TimeoutException e) {
        // not yet
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted", e);
      }
      for (Node node : nodes) {
        if (node.process != null && !node.process.isAlive()) {
          throw new IllegalStateException(
              "kafka-" + node.id + " exited while starting; its log is in " + home + "/logs");
        }
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "fewer than " + count + " brokers after " + timeout + "; logs in " + home);
      }
      Pause.millis(250);
    }
  }

  /**
   * Partitions of {@code topics} whose in-sync replicas are fewer than their replicas, or that have
   * no leader; -1 when the cluster cannot say.
   */
  int underReplicated(List<String> topics) {
    try {
      Map<String, TopicDescription> described =
          admin.describeTopics(topics).allTopicNames().get(10, TimeUnit.SECONDS);
      int count = 0;
      for (TopicDescription topic : described.values()) {
        for (var partition : topic.partitions()) {
          if (partition.leader() == null || partition.isr().size() < partition.replicas().size()) {
            count++;
          }
        }
      }
      return count;
    } catch (ExecutionException | TimeoutException e) {
      return -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
  }

  @Override
  public void close() {
    admin.close(Duration.ofSeconds(5));
    // All at once: a node stopped last would wait for a controller quorum that is already gone.
    for (Node node : nodes) {
      if (node.process != null && node.process.isAlive()) {
        node.process.signal(OsProcess.Signal.CONT);
        node.process.signal(OsProcess.Signal.TERM);
      }
    }
    for (Node node : nodes) {
      if (node.process != null && !node.process.awaitExit(Duration.ofSeconds(20))) {
        node.process.kill();
      }
      node.proxy.close();
    }
  }
}
