package dev.turnstile.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.turnstile.bridge.BridgeApplication;
import dev.turnstile.bridge.config.BridgeConfigLoader;
import dev.turnstile.schemas.TopicCatalogue;
import dev.turnstile.testkit.EmbeddedKafka;
import dev.turnstile.testkit.servicebus.ServiceBusDouble;
import dev.turnstile.topology.TopologyProcess;
import dev.turnstile.topology.config.TopologyConfig;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.math.BigDecimal;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Predicate;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Both processes against a broker that authenticates with SASL/SCRAM-SHA-512 over TLS ({@code
 * SASL_SSL}) and authorizes with KRaft's {@code StandardAuthorizer} ({@code
 * allow.everyone.if.no.acl.found=false}), each under its own SCRAM user and with exactly the ACLs
 * of its Strimzi {@code KafkaUser} manifest in {@code k8s/components/strimzi}, read from the YAML:
 * if the manifests lose an ACL a process needs, this fails. The security settings go through the
 * same pass-through keys as {@code config/kafka-sasl-ssl.properties} ({@code
 * kafka.security.protocol}, {@code kafka.sasl.*}, {@code kafka.ssl.truststore.*}). A device event
 * over HTTP and a billing message over Service Bus end in {@code device-sessions.v1} and {@code
 * post-merge.v1}, read by the super user. And a principal without the bridge's ACLs (the topology's
 * user) cannot write the raw topic: the device gets a 503 within the ack timeout, not a hang, and
 * nothing is written.
 */
class KafkaSaslAclIT {

  private static final Path REPOSITORY = Path.of("..").toAbsolutePath().normalize();
  private static final String BRIDGE_USER = "turnstile-bridge";
  private static final String TOPOLOGY_USER = "turnstile-topology";
  private static final Map<String, String> PASSWORDS =
      Map.of(
          BRIDGE_USER, "bridge-scram-" + UUID.randomUUID(),
          TOPOLOGY_USER, "topology-scram-" + UUID.randomUUID());

  @TempDir static Path home;

  static EmbeddedKafka kafka;
  static ServiceBusDouble serviceBus;
  static TopologyProcess topology;
  static BridgeApplication bridge;

  @BeforeAll
  static void start() throws Exception {
    kafka = EmbeddedKafka.startSasl(home.resolve("kafka"));
    kafka.createTopics(TopicCatalogue.ALL.stream().map(LocalStack::newTopic).toList());
    try (Admin admin = kafka.admin()) {
      List<UserScramCredentialUpsertion> users = new ArrayList<>();
      PASSWORDS.forEach(
          (user, password) ->
              users.add(
                  new UserScramCredentialUpsertion(
                      user,
                      new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 8192),
                      password)));
      admin.alterUserScramCredentials(List.copyOf(users)).all().get();
      admin.createAcls(aclsOf("kafkauser-bridge.yaml")).all().get();
      admin.createAcls(aclsOf("kafkauser-topology.yaml")).all().get();
    }
    // The broker learns new credentials from the metadata log: wait until it takes them.
    await()
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptions()
        .until(
            () -> {
              try (Admin asBridge = Admin.create(Map.copyOf(scram(BRIDGE_USER)))) {
                return asBridge.describeCluster().clusterId().get() != null;
              }
            });

    Map<String, String> topologyValues = new HashMap<>(prefixed(scram(TOPOLOGY_USER)));
    topologyValues.put("topology.state-dir", home.resolve("streams").toString());
    topologyValues.put("topology.num-standby-replicas", "0");
    topologyValues.put("topology.punctuate-interval-ms", "1000");
    topologyValues.put("topology.http.host", "127.0.0.1");
    topologyValues.put("topology.http.port", "0");
    topologyValues.put("topology.topics.wait-ms", "20000");
    // As TopologyMain runs it: the topic checks (describe topics and their configs), then Kafka
    // Streams; ready once RUNNING with the topics as declared.
    topology = TopologyProcess.start(TopologyConfig.of(topologyValues));
    await()
        .atMost(Duration.ofSeconds(60))
        .ignoreExceptions()
        .until(() -> status("http://127.0.0.1:" + topology.healthPort() + "/health/ready") == 200);

    serviceBus = ServiceBusDouble.start();
    serviceBus.createQueue(LocalStack.BILLING_QUEUE);
    bridge = startBridge(BRIDGE_USER);
  }

  @AfterAll
  static void stop() {
    for (AutoCloseable closeable : new AutoCloseable[] {bridge, serviceBus, topology, kafka}) {
      try {
        if (closeable != null) {
          closeable.close();
        }
      } catch (Exception e) {
        // the next one still needs closing
      }
    }
  }

  @Test
  void aDeviceSessionAndItsBillingMessageCrossAnAuthorizingBroker() throws Exception {
    Instant finished = Instant.now().truncatedTo(ChronoUnit.SECONDS).minus(Duration.ofMinutes(5));
    Instant started = finished.minus(Duration.ofMinutes(45));
    assertThat(post(bridge, "sasl-s-1", "Started", started)).isEqualTo(202);
    assertThat(post(bridge, "sasl-f-1", "Finished", finished)).isEqualTo(202);
    BillingPublisher.send(
        serviceBus.connectionString(),
        LocalStack.BILLING_QUEUE,
        BillingPublisher.message("sasl-42", "driver-9", new BigDecimal("3.5"), BigDecimal.ONE));

    assertThat(
            readAsSuperUser(
                TopicCatalogue.DEVICE_SESSIONS.baseName(),
                r -> "station-sasl".equals(r.key()) && type(r).endsWith(".closed.v1"),
                false))
        .as("the closed session, written by the topology under its SCRAM user")
        .isNotEmpty();
    assertThat(
            readAsSuperUser(
                TopicCatalogue.POST_MERGE.baseName(), r -> "sasl-42".equals(r.key()), false))
        .as("the settled session: billing message merged with the device session")
        .isNotEmpty();
  }

  @Test
  void aPrincipalWithoutTheBridgesAclsCannotWriteTheRawTopic() throws Exception {
    try (BridgeApplication impostor = startBridge(TOPOLOGY_USER)) {
      long before = System.nanoTime();
      int status = post(impostor, "sasl-denied-1", "Started", Instant.now().minusSeconds(60));
      assertThat(status).as("refused by the broker's authorizer, answered 503").isEqualTo(503);
      assertThat(Duration.ofNanos(System.nanoTime() - before))
          .as("within the bridge's ack timeout, not a hang")
          .isLessThan(Duration.ofSeconds(20));
    }
    assertThat(
            readAsSuperUser(
                TopicCatalogue.DEVICE_EVENTS_RAW.baseName(),
                r -> "station-denied".equals(r.key()),
                true))
        .as("nothing of it was written")
        .isEmpty();
  }

  /**
   * Settings of a SCRAM-SHA-512 user, as the pass-through keys of config/kafka-sasl-ssl.properties
   * carry them.
   */
  private static Map<String, String> scram(String user) {
    Map<String, String> client = new HashMap<>(kafka.clientSslProperties());
    client.putAll(
        Map.of(
            "bootstrap.servers",
            kafka.bootstrapServers(),
            "security.protocol",
            "SASL_SSL",
            "sasl.mechanism",
            "SCRAM-SHA-512",
            "sasl.jaas.config",
            "org.apache.kafka.common.security.scram.ScramLoginModule required username=\""
                + user
                + "\" password=\""
                + PASSWORDS.get(user)
                + "\";"));
    return client;
  }

  private static Map<String, String> prefixed(Map<String, String> client) {
    Map<String, String> keys = new HashMap<>();
    client.forEach((key, value) -> keys.put("kafka." + key, value));
    return keys;
  }

  private static BridgeApplication startBridge(String user) {
    Map<String, String> values = new HashMap<>(prefixed(scram(user)));
    values.put("bridge.http.host", "127.0.0.1");
    values.put("bridge.http.port", "0");
    values.put("bridge.auth.enabled", "false"); // about Kafka's authorization, not the devices'
    values.put("bridge.kafka.readiness-interval-ms", "200");
    values.put("bridge.kafka.ack-timeout-ms", "5000");
    values.put("bridge.http.idle-timeout-ms", "10000");
    if (user.equals(BRIDGE_USER)) { // the impostor only serves HTTP
      values.put("bridge.servicebus.connection-string", serviceBus.connectionString());
      values.put("bridge.servicebus.local-mode", "true");
      values.put("bridge.servicebus.entities", LocalStack.BILLING_QUEUE);
      values.put("bridge.servicebus.entity.billing.queue", LocalStack.BILLING_QUEUE);
      values.put(
          "bridge.servicebus.entity.billing.key",
          "property:" + BillingPublisher.MERGE_KEY_PROPERTY);
      values.put("bridge.servicebus.settle-timeout-ms", "5000");
    }
    BridgeApplication started = BridgeApplication.start(BridgeConfigLoader.fromMap(values));
    await().atMost(Duration.ofSeconds(30)).until(() -> get(started, "/health/ready") == 200);
    return started;
  }

  /**
   * The ACLs of one Strimzi {@code KafkaUser} manifest as Kafka {@link AclBinding}s: principal
   * {@code User:<metadata.name>} (Strimzi's for SCRAM users), each resource and operation, allowed
   * from any host (Strimzi's defaults for {@code type} and {@code host}).
   */
  static List<AclBinding> aclsOf(String manifest) throws Exception {
    GenericKubernetesResource user =
        new KubernetesSerialization()
            .unmarshal(
                Files.readString(REPOSITORY.resolve("k8s/components/strimzi").resolve(manifest)),
                GenericKubernetesResource.class);
    assertThat(user.getKind()).isEqualTo("KafkaUser");
    String principal = "User:" + user.getMetadata().getName();
    @SuppressWarnings("unchecked")
    Map<String, Object> authorization =
        (Map<String, Object>)
            ((Map<String, Object>) user.getAdditionalProperties().get("spec")).get("authorization");
    assertThat(authorization.get("type")).isEqualTo("simple");
    @SuppressWarnings("unchecked")
    List<Map<String, Object>> acls = (List<Map<String, Object>>) authorization.get("acls");
    List<AclBinding> bindings = new ArrayList<>();
    for (Map<String, Object> acl : acls) {
      @SuppressWarnings("unchecked")
      Map<String, Object> resource = (Map<String, Object>) acl.get("resource");
      ResourcePattern pattern = pattern(resource);
      @SuppressWarnings("unchecked")
      List<String> operations = (List<String>) acl.get("operations");
      String host = (String) acl.getOrDefault("host", "*");
      AclPermissionType permission =
          "deny".equals(acl.get("type")) ? AclPermissionType.DENY : AclPermissionType.ALLOW;
      for (String operation : operations) {
        AclOperation op = AclOperation.fromString(camelToSnake(operation));
        assertThat(op).as(operation + " in " + manifest).isNotEqualTo(AclOperation.UNKNOWN);
        bindings.add(
            new AclBinding(pattern, new AccessControlEntry(principal, host, op, permission)));
      }
    }
    return bindings;
  }

  private static ResourcePattern pattern(Map<String, Object> resource) {
    String type = (String) resource.get("type");
    PatternType patternType =
        "prefix".equals(resource.get("patternType")) ? PatternType.PREFIXED : PatternType.LITERAL;
    return switch (type) {
      case "topic" ->
          new ResourcePattern(ResourceType.TOPIC, (String) resource.get("name"), patternType);
      case "group" ->
          new ResourcePattern(ResourceType.GROUP, (String) resource.get("name"), patternType);
      case "transactionalId" ->
          new ResourcePattern(
              ResourceType.TRANSACTIONAL_ID, (String) resource.get("name"), patternType);
      case "cluster" ->
          new ResourcePattern(ResourceType.CLUSTER, "kafka-cluster", PatternType.LITERAL);
      default ->
          throw new AssertionError("a KafkaUser resource type this test does not map: " + type);
    };
  }

  /** Strimzi writes {@code DescribeConfigs}; Kafka's names are {@code DESCRIBE_CONFIGS}. */
  private static String camelToSnake(String operation) {
    return operation.replaceAll("([a-z])([A-Z])", "$1_$2");
  }

  private static String type(ConsumerRecord<String, byte[]> record) {
    var header = record.headers().lastHeader("ce_type");
    return header == null
        ? ""
        : new String(header.value(), java.nio.charset.StandardCharsets.UTF_8);
  }

  /**
   * The records of {@code topic} that match, read committed by the super user: polls until one
   * matches (up to 60 s); with {@code toEndOnly}, only up to the topic's end as of the start.
   */
  private static List<ConsumerRecord<String, byte[]>> readAsSuperUser(
      String topic, Predicate<ConsumerRecord<String, byte[]>> wanted, boolean toEndOnly) {
    Map<String, Object> config = new HashMap<>(kafka.superUserProperties());
    config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    config.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false);
    config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
    config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    List<ConsumerRecord<String, byte[]>> found = new ArrayList<>();
    try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(config)) {
      List<TopicPartition> partitions =
          consumer.partitionsFor(topic).stream()
              .map(p -> new TopicPartition(topic, p.partition()))
              .toList();
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
      long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      boolean seenEnd = false;
      while (System.nanoTime() < deadline && found.isEmpty() && !seenEnd) {
        for (ConsumerRecord<String, byte[]> record : consumer.poll(Duration.ofMillis(200))) {
          if (wanted.test(record)) {
            found.add(record);
          }
        }
        seenEnd =
            toEndOnly && partitions.stream().allMatch(p -> consumer.position(p) >= end.get(p));
      }
    }
    return found;
  }

  private static int post(BridgeApplication target, String eventId, String type, Instant at)
      throws Exception {
    String device = target == bridge ? "station-sasl" : "station-denied";
    String body =
        """
        {"eventId":"%s","type":"%s","occurredAt":"%s","sessionRef":"sasl-42"}
        """
            .formatted(eventId, type, at);
    return HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(
                    URI.create(
                        "http://127.0.0.1:"
                            + target.httpPort()
                            + "/api/v1/devices/"
                            + device
                            + "/events"))
                .timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build(),
            HttpResponse.BodyHandlers.ofString())
        .statusCode();
  }

  private static int get(BridgeApplication target, String path) throws Exception {
    return status("http://127.0.0.1:" + target.httpPort() + path);
  }

  private static int status(String url) throws Exception {
    return HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).build(),
            HttpResponse.BodyHandlers.discarding())
        .statusCode();
  }
}
