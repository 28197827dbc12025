package dev.turnstile.testkit;

import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.apache.kafka.common.test.JaasUtils;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;

/**
 * A real KRaft Kafka with one broker and one controller, started in this JVM with Kafka's own
 * {@link KafkaClusterTestKit}. Configured for one broker: internal topics and the transaction log
 * with replication factor 1, so exactly-once Kafka Streams runs on it. Broker and controller are
 * separate nodes (not combined) so that the broker can be stopped and restarted for outage tests
 * while the controller keeps the metadata.
 *
 * <p>Used by tests ({@code *IT}) and by the local stack ({@code ./turnstile demo|up}).
 */
public final class EmbeddedKafka implements AutoCloseable {

  private static final String JAAS_FILE = "java.security.auth.login.config";

  private final KafkaClusterTestKit cluster;

  /** The JVM's JAAS file setting before a SASL node replaced it; {@code ""} for none. */
  private final String jaasBefore;

  private EmbeddedKafka(KafkaClusterTestKit cluster, String jaasBefore) {
    this.cluster = cluster;
    this.jaasBefore = jaasBefore;
  }

  /**
   * Formats and starts a node whose data lives under {@code baseDirectory} (a temporary folder when
   * {@code null}), and waits until the broker is ready.
   *
   * @throws IllegalStateException if the node does not start
   */
  public static EmbeddedKafka start(Path baseDirectory) {
    return start(baseDirectory, Map.of());
  }

  /**
   * As {@link #start(Path)}, with broker settings that replace the single-node defaults, e.g.
   * {@code auto.create.topics.enable=true} to prove a client creates no topic even where the broker
   * would allow it.
   */
  public static EmbeddedKafka start(Path baseDirectory, Map<String, String> brokerOverrides) {
    return start(baseDirectory, brokerOverrides, false);
  }

  /**
   * A node whose client listener speaks {@code SASL_SSL} (the test kit's own CA and certificate for
   * {@code localhost}; clients add {@link #clientSslProperties()}) and whose controller listener
   * speaks {@code SASL_PLAINTEXT}, with {@code PLAIN} and {@code SCRAM-SHA-512} enabled,
   * authorization by KRaft's {@code StandardAuthorizer} with {@code
   * allow.everyone.if.no.acl.found=false}: a principal without an ACL may do nothing. The super
   * user is the test kit's PLAIN {@code plain-admin} ({@link #superUserProperties()}), which also
   * carries broker-to-controller traffic; create SCRAM users and their ACLs with it. The test kit
   * points the JVM's {@code java.security.auth.login.config} at a JAAS file of its own for the
   * broker's PLAIN users; clients here set {@code sasl.jaas.config} and are not affected.
   */
  public static EmbeddedKafka startSasl(Path baseDirectory) {
    return start(
        baseDirectory,
        Map.of(
            "sasl.enabled.mechanisms", "PLAIN,SCRAM-SHA-512",
            "authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
            "allow.everyone.if.no.acl.found", "false",
            "super.users", "User:" + JaasUtils.KAFKA_PLAIN_ADMIN),
        true);
  }

  /**
   * What a client of a {@link #startSasl} node needs to trust its certificate: {@code
   * ssl.truststore.*} keys, as strings (the test kit's truststore file and its password).
   */
  public Map<String, String> clientSslProperties() {
    Map<String, String> ssl = new HashMap<>();
    cluster
        .sslManager()
        .createClientSslConfig()
        .forEach(
            (key, value) -> {
              if (value instanceof org.apache.kafka.common.config.types.Password password) {
                ssl.put(key, password.value());
              } else if (value instanceof java.util.List<?> list) {
                if (!list.isEmpty()) { // an empty list (say, ssl.cipher.suites) means the default
                  ssl.put(key, String.join(",", list.stream().map(String::valueOf).toList()));
                }
              } else if (value != null) {
                ssl.put(key, String.valueOf(value));
              }
            });
    return ssl;
  }

  /** Client settings of the super user of a {@link #startSasl} node. */
  public Map<String, Object> superUserProperties() {
    Map<String, Object> props = new HashMap<>(clientSslProperties());
    props.putAll(superUserSasl());
    return props;
  }

  private static Map<String, Object> superUserSasl() {
    return Map.of(
        "security.protocol",
        "SASL_SSL",
        "sasl.mechanism",
        "PLAIN",
        "sasl.jaas.config",
        "org.apache.kafka.common.security.plain.PlainLoginModule required username=\""
            + JaasUtils.KAFKA_PLAIN_ADMIN
            + "\" password=\""
            + JaasUtils.KAFKA_PLAIN_ADMIN_PASSWORD
            + "\";");
  }

  private static EmbeddedKafka start(
      Path baseDirectory, Map<String, String> brokerOverrides, boolean sasl) {
    String jaasBefore = sasl ? System.getProperty(JAAS_FILE, "") : null;
    try {
      TestKitNodes.Builder nodes =
          new TestKitNodes.Builder()
              .setCombined(false)
              .setNumBrokerNodes(1)
              .setNumControllerNodes(1);
      if (sasl) {
        nodes
            .setBrokerSecurityProtocol(SecurityProtocol.SASL_SSL)
            .setControllerSecurityProtocol(SecurityProtocol.SASL_PLAINTEXT);
      }
      if (baseDirectory != null) {
        nodes.setBaseDirectory(baseDirectory);
      }
      KafkaClusterTestKit.Builder builder = new KafkaClusterTestKit.Builder(nodes.build());
      Map<String, Object> config = singleNodeConfig();
      config.putAll(brokerOverrides);
      config.forEach(builder::setConfigProp);
      KafkaClusterTestKit cluster = builder.build();
      formatQuietly(cluster);
      cluster.startup();
      cluster.waitForReadyBrokers();
      return new EmbeddedKafka(cluster, jaasBefore);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while starting the embedded Kafka node", e);
    } catch (Exception e) {
      throw new IllegalStateException("the embedded Kafka node did not start: " + e, e);
    }
  }

  /** {@code format()} prints its bootstrap metadata to stdout, which is the demo's report. */
  private static void formatQuietly(KafkaClusterTestKit cluster) throws Exception {
    PrintStream stdout = System.out;
    synchronized (System.class) {
      System.setOut(new PrintStream(OutputStream.nullOutputStream()));
      try {
        cluster.format();
      } finally {
        System.setOut(stdout);
      }
    }
  }

  private static Map<String, Object> singleNodeConfig() {
    Map<String, Object> config = new HashMap<>();
    config.put("offsets.topic.replication.factor", "1");
    config.put("offsets.topic.num.partitions", "3");
    config.put("transaction.state.log.replication.factor", "1");
    config.put("transaction.state.log.min.isr", "1");
    config.put("transaction.state.log.num.partitions", "3");
    config.put("group.initial.rebalance.delay.ms", "0");
    config.put("auto.create.topics.enable", "false");
    return config;
  }

  /** The clients' bootstrap address, {@code host:port}. */
  public String bootstrapServers() {
    return cluster.bootstrapServers();
  }

  /** A new admin client; the caller closes it. */
  public Admin admin() {
    return jaasBefore == null ? cluster.admin() : cluster.admin(superUserProperties());
  }

  /** Creates the topics, ignoring those that exist already. */
  public void createTopics(Collection<NewTopic> topics) {
    try (Admin admin = admin()) {
      for (NewTopic topic : topics) {
        try {
          admin.createTopics(java.util.List.of(topic)).all().get();
        } catch (ExecutionException e) {
          if (!(e.getCause() instanceof TopicExistsException)) {
            throw new IllegalStateException("could not create topic " + topic.name(), e.getCause());
          }
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while creating topics", e);
    }
  }

  /** Stops the broker (the controller keeps running) to simulate a Kafka outage. */
  public void stopBroker() {
    cluster.brokers().values().forEach(broker -> broker.shutdown());
    cluster.brokers().values().forEach(broker -> broker.awaitShutdown());
  }

  /** Starts the broker stopped by {@link #stopBroker()} again, on the same port. */
  public void restartBroker() {
    cluster.brokers().keySet().forEach(id -> cluster.restartBroker(id, Map.of()));
    try {
      cluster.waitForReadyBrokers();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while restarting the broker", e);
    } catch (ExecutionException e) {
      throw new IllegalStateException("the broker did not come back", e);
    }
  }

  @Override
  public void close() {
    try {
      cluster.close();
      if (jaasBefore != null) {
        // The test kit pointed the whole JVM at its JAAS file, which close() deleted.
        if (jaasBefore.isEmpty()) {
          System.clearProperty(JAAS_FILE);
        } else {
          System.setProperty(JAAS_FILE, jaasBefore);
        }
        javax.security.auth.login.Configuration.setConfiguration(null);
      }
    } catch (Exception e) {
      throw new IllegalStateException("could not stop the embedded Kafka node", e);
    }
  }
}
