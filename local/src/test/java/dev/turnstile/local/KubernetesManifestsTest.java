package dev.turnstile.local;

import static org.assertj.core.api.Assertions.assertThat;

import dev.turnstile.bridge.config.BridgeConfig;
import dev.turnstile.bridge.config.BridgeConfigLoader;
import dev.turnstile.bridge.config.BridgeConfigModel;
import dev.turnstile.runtime.config.ConfigModel;
import dev.turnstile.schemas.Topic;
import dev.turnstile.schemas.TopicCatalogue;
import dev.turnstile.topology.TopologyApplication;
import dev.turnstile.topology.config.TopologyConfig;
import dev.turnstile.topology.config.TopologyConfigModel;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesList;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Renders every Kustomize overlay with {@code kubectl kustomize} and reads the result into the
 * Kubernetes model (fabric8), then checks the rules a deployment must keep: probes on the
 * processes' endpoints, memory limits that hold heap plus RocksDB, no secret inline, every
 * configuration key known to the process's model (the whole environment is loaded through it),
 * topics as the catalogue declares them, grace periods above the shutdown timeouts, and no more
 * topology pods than input partitions.
 */
class KubernetesManifestsTest {

  static final Path REPOSITORY = Path.of("..").toAbsolutePath().normalize();
  static final KubernetesSerialization YAML = new KubernetesSerialization();

  /** Off-heap room the JVM needs beside the heap: metaspace, threads, code cache, buffers. */
  static final long JVM_OVERHEAD_BYTES = 192L * 1024 * 1024;

  static Stream<String> overlays() throws IOException {
    try (Stream<Path> dirs = Files.list(REPOSITORY.resolve("k8s/overlays"))) {
      List<String> names = dirs.map(p -> p.getFileName().toString()).sorted().toList();
      assertThat(names).contains("dev", "prod");
      return names.stream();
    }
  }

  static String kustomize(String directory) throws Exception {
    Process process =
        new ProcessBuilder("kubectl", "kustomize", REPOSITORY.resolve(directory).toString())
            .redirectErrorStream(true)
            .start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(process.exitValue()).as("kubectl kustomize %s: %s", directory, output).isZero();
    return output;
  }

  @SuppressWarnings("unchecked")
  static List<HasMetadata> render(String directory) throws Exception {
    Object parsed = YAML.unmarshal(kustomize(directory));
    if (parsed instanceof KubernetesList list) {
      return list.getItems();
    }
    if (parsed instanceof List<?> list) {
      return (List<HasMetadata>) list;
    }
    return List.of((HasMetadata) parsed);
  }

  static <T extends HasMetadata> List<T> all(List<HasMetadata> resources, Class<T> type) {
    return resources.stream().filter(type::isInstance).map(type::cast).toList();
  }

  static List<GenericKubernetesResource> custom(List<HasMetadata> resources, String kind) {
    return all(resources, GenericKubernetesResource.class).stream()
        .filter(r -> r.getKind().equals(kind))
        .toList();
  }

  static Deployment deployment(List<HasMetadata> resources, String name) {
    return all(resources, Deployment.class).stream()
        .filter(d -> d.getMetadata().getName().equals(name))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no Deployment " + name));
  }

  /**
   * The topology's Deployments: the first generation's ({@code turnstile-topology}) and those of
   * further generations beside it ({@code turnstile-topology-<generation>}).
   */
  static List<Deployment> topologies(List<HasMetadata> resources) {
    List<Deployment> topologies =
        all(resources, Deployment.class).stream()
            .filter(d -> d.getMetadata().getName().startsWith("turnstile-topology"))
            .toList();
    assertThat(topologies)
        .extracting(d -> d.getMetadata().getName())
        .contains("turnstile-topology");
    return topologies;
  }

  static Container container(Deployment deployment) {
    return deployment.getSpec().getTemplate().getSpec().getContainers().get(0);
  }

  /** The container's environment as the process sees it; secret references as placeholders. */
  static Map<String, String> environment(List<HasMetadata> resources, Container container) {
    Map<String, String> env = new HashMap<>();
    container
        .getEnvFrom()
        .forEach(
            source -> {
              String name = source.getConfigMapRef().getName();
              ConfigMap map =
                  all(resources, ConfigMap.class).stream()
                      .filter(c -> c.getMetadata().getName().equals(name))
                      .findFirst()
                      .orElseThrow(() -> new AssertionError("no ConfigMap " + name));
              env.putAll(map.getData());
            });
    for (EnvVar variable : container.getEnv()) {
      env.put(
          variable.getName(),
          variable.getValueFrom() != null ? "from-a-secret" : variable.getValue());
    }
    env.remove("JAVA_OPTS");
    return env;
  }

  static String javaOpts(Container container) {
    return container.getEnv().stream()
        .filter(e -> e.getName().equals("JAVA_OPTS"))
        .map(EnvVar::getValue)
        .findFirst()
        .orElse("");
  }

  @ParameterizedTest
  @MethodSource("overlays")
  void everyResourceRendersAndHasItsKind(String overlay) throws Exception {
    List<HasMetadata> resources = render("k8s/overlays/" + overlay);

    Set<String> kinds = resources.stream().map(HasMetadata::getKind).collect(Collectors.toSet());
    assertThat(kinds)
        .contains(
            "Deployment",
            "Service",
            "ConfigMap",
            "ServiceAccount",
            "PodDisruptionBudget",
            "NetworkPolicy",
            "KafkaTopic",
            "KafkaUser",
            "PodMonitor",
            "ServiceMonitor",
            "PrometheusRule");
    assertThat(all(resources, PodDisruptionBudget.class))
        .as("one PodDisruptionBudget per Deployment")
        .hasSameSizeAs(all(resources, Deployment.class));
    assertThat(resources).allSatisfy(r -> assertThat(r.getMetadata().getNamespace()).isNotBlank());
  }

  @ParameterizedTest
  @MethodSource("overlays")
  void everyContainerHasProbesOnTheProcessEndpointsAndBoundedMemory(String overlay)
      throws Exception {
    List<HasMetadata> resources = render("k8s/overlays/" + overlay);
    for (Deployment deployment : all(resources, Deployment.class)) {
      PodSpec pod = deployment.getSpec().getTemplate().getSpec();
      assertThat(pod.getEnableServiceLinks()).as("enableServiceLinks").isFalse();
      assertThat(pod.getSecurityContext().getRunAsNonRoot()).isTrue();
      for (Container container : pod.getContainers()) {
        String where = deployment.getMetadata().getName() + "/" + container.getName();
        int port = container.getPorts().get(0).getContainerPort();
        assertProbe(where + " liveness", container.getLivenessProbe(), "/health/live");
        assertProbe(where + " readiness", container.getReadinessProbe(), "/health/ready");
        assertThat(container.getStartupProbe()).as(where + " startup probe").isNotNull();
        assertThat(container.getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
        Map<String, Quantity> limits = container.getResources().getLimits();
        Map<String, Quantity> requests = container.getResources().getRequests();
        assertThat(limits).as(where + " limits").containsKey("memory");
        assertThat(requests).as(where + " requests").containsKeys("memory", "cpu");
        long limit = limits.get("memory").getNumericalAmount().longValue();
        long heap = (long) (limit * maxRamPercentage(where, javaOpts(container)) / 100);
        long offHeap =
            container.getName().equals("topology")
                ? topology(resources, container).streamsOverrides().entrySet().stream()
                    .filter(e -> e.getKey().equals("turnstile.rocksdb.total.bytes"))
                    .mapToLong(e -> Long.parseLong(e.getValue()))
                    .findFirst()
                    .orElse(128L * 1024 * 1024)
                : 0;
        assertThat(limit - heap)
            .as(where + ": the memory limit must hold the heap, RocksDB's cache and the JVM")
            .isGreaterThanOrEqualTo(offHeap + JVM_OVERHEAD_BYTES);
        int configured =
            container.getName().equals("topology")
                ? topology(resources, container).get(TopologyConfigModel.HTTP_PORT)
                : bridge(resources, container).get(BridgeConfigModel.HTTP_PORT);
        assertThat(port).as(where + " container port = configured HTTP port").isEqualTo(configured);
      }
    }
  }

  static double maxRamPercentage(String where, String javaOpts) {
    Matcher matcher = Pattern.compile("-XX:MaxRAMPercentage=([0-9.]+)").matcher(javaOpts);
    assertThat(matcher.find()).as(where + ": JAVA_OPTS sets -XX:MaxRAMPercentage").isTrue();
    return Double.parseDouble(matcher.group(1));
  }

  static void assertProbe(String what, Probe probe, String path) {
    assertThat(probe).as(what).isNotNull();
    assertThat(probe.getHttpGet().getPath()).as(what).isEqualTo(path);
  }

  static BridgeConfig bridge(List<HasMetadata> resources, Container container) {
    return BridgeConfigLoader.from(
        BridgeConfigModel.MODEL.load(List.of(), environment(resources, container)));
  }

  static TopologyConfig topology(List<HasMetadata> resources, Container container) {
    return TopologyConfig.of(
        TopologyConfigModel.MODEL.load(List.of(), environment(resources, container)));
  }

  /** Loading the whole environment through the model refuses any unknown or invalid key. */
  @ParameterizedTest
  @MethodSource("overlays")
  void everyConfigurationKeyIsKnownToTheModelAndNoSecretIsInline(String overlay) throws Exception {
    List<HasMetadata> resources = render("k8s/overlays/" + overlay);
    assertThat(all(resources, Secret.class)).as("Secrets are referenced, never rendered").isEmpty();
    List<String> names = new ArrayList<>(List.of("turnstile-bridge"));
    topologies(resources).forEach(d -> names.add(d.getMetadata().getName()));
    for (String name : names) {
      Container container =
          deployment(resources, name).getSpec().getTemplate().getSpec().getContainers().get(0);
      ConfigModel model =
          name.equals("turnstile-bridge") ? BridgeConfigModel.MODEL : TopologyConfigModel.MODEL;
      if (name.equals("turnstile-bridge")) {
        assertThat(bridge(resources, container).serviceBus()).isNotNull();
      } else {
        assertThat(topology(resources, container).get(TopologyConfigModel.BOOTSTRAP_SERVERS))
            .isNotBlank();
      }
      for (EnvVar variable : container.getEnv()) {
        String key = model.keyOf(variable.getName());
        if (key != null && model.isSecret(key)) {
          assertThat(variable.getValueFrom())
              .as(name + ": secret " + key + " must come from a secretKeyRef")
              .isNotNull();
          assertThat(variable.getValueFrom().getSecretKeyRef()).isNotNull();
        }
      }
      for (ConfigMap map : all(resources, ConfigMap.class)) {
        if (map.getMetadata().getName().startsWith(name)) {
          assertThat(map.getData().keySet())
              .as(map.getMetadata().getName() + " holds no secret key")
              .noneMatch(v -> model.keyOf(v) != null && model.isSecret(model.keyOf(v)));
        }
      }
    }
  }

  @ParameterizedTest
  @MethodSource("overlays")
  void gracePeriodsExceedTheShutdownTimeouts(String overlay) throws Exception {
    List<HasMetadata> resources = render("k8s/overlays/" + overlay);

    Deployment bridge = deployment(resources, "turnstile-bridge");
    Container bridgeContainer = bridge.getSpec().getTemplate().getSpec().getContainers().get(0);
    long preStopMs = preStopSleepSeconds(bridgeContainer) * 1000;
    long shutdownMs =
        bridge(resources, bridgeContainer).get(BridgeConfigModel.SHUTDOWN_TIMEOUT_MS).toMillis();
    assertThat(bridge.getSpec().getTemplate().getSpec().getTerminationGracePeriodSeconds() * 1000)
        .as("bridge: grace > preStop sleep + bridge.shutdown-timeout-ms")
        .isGreaterThan(preStopMs + shutdownMs);

    Deployment topology = deployment(resources, "turnstile-topology");
    Container topologyContainer = topology.getSpec().getTemplate().getSpec().getContainers().get(0);
    assertThat(topology.getSpec().getTemplate().getSpec().getTerminationGracePeriodSeconds() * 1000)
        .as("topology: grace > Kafka Streams' close timeout")
        .isGreaterThan(
            preStopSleepSeconds(topologyContainer) * 1000
                + TopologyApplication.CLOSE_TIMEOUT.toMillis());
  }

  static long preStopSleepSeconds(Container container) {
    if (container.getLifecycle() == null || container.getLifecycle().getPreStop() == null) {
      return 0;
    }
    String command = String.join(" ", container.getLifecycle().getPreStop().getExec().getCommand());
    Matcher sleep = Pattern.compile("sleep (\\d+)").matcher(command);
    assertThat(sleep.find()).as("preStop: " + command).isTrue();
    return Long.parseLong(sleep.group(1));
  }

  @ParameterizedTest
  @MethodSource("overlays")
  void topologyStateIsAnEmptyDirWithStandbysAndPodsNeverOutnumberPartitions(String overlay)
      throws Exception {
    List<HasMetadata> resources = render("k8s/overlays/" + overlay);
    for (Deployment topology : topologies(resources)) {
      stateOnAnEmptyDirAndStandbys(resources, topology);
    }
    for (GenericKubernetesResource scaled : custom(resources, "ScaledObject")) {
      Map<String, Object> spec = scaled.get("spec");
      assertThat(((Number) spec.get("maxReplicaCount")).intValue())
          .as("KEDA max replicas <= input partitions")
          .isLessThanOrEqualTo(inputPartitions());
      assertThat(((Number) spec.get("minReplicaCount")).intValue())
          .isLessThanOrEqualTo(deployment(resources, "turnstile-topology").getSpec().getReplicas());
    }
    assertThat(all(resources, HorizontalPodAutoscaler.class))
        .allSatisfy(
            hpa ->
                assertThat(hpa.getSpec().getScaleTargetRef().getName())
                    .as("the HPA scales the bridge; KEDA scales the topology")
                    .isEqualTo("turnstile-bridge"));
  }

  static int inputPartitions() {
    return Stream.of(TopicCatalogue.DEVICE_EVENTS_RAW, TopicCatalogue.SERVICEBUS_MESSAGES_RAW)
        .mapToInt(Topic::partitions)
        .min()
        .orElseThrow();
  }

  static void stateOnAnEmptyDirAndStandbys(List<HasMetadata> resources, Deployment topology) {
    PodSpec pod = topology.getSpec().getTemplate().getSpec();
    Container container = pod.getContainers().get(0);
    TopologyConfig config = topology(resources, container);

    String stateMount =
        container.getVolumeMounts().stream()
            .filter(
                m -> m.getMountPath().equals(config.get(TopologyConfigModel.STATE_DIR).toString()))
            .map(m -> m.getName())
            .findFirst()
            .orElseThrow(
                () ->
                    new AssertionError(
                        "state dir " + config.get(TopologyConfigModel.STATE_DIR) + " mounted"));
    assertThat(pod.getVolumes())
        .filteredOn(v -> v.getName().equals(stateMount))
        .singleElement()
        .satisfies(v -> assertThat(v.getEmptyDir()).isNotNull());

    int replicas = topology.getSpec().getReplicas();
    if (replicas > 1) {
      assertThat(config.get(TopologyConfigModel.NUM_STANDBY_REPLICAS))
          .as("standbys with several pods")
          .isPositive();
    }
    assertThat(replicas).isLessThanOrEqualTo(inputPartitions());
  }

  @ParameterizedTest
  @MethodSource("overlays")
  void kafkaTopicsAreTheCatalogue(String overlay) throws Exception {
    List<HasMetadata> resources = render("k8s/overlays/" + overlay);
    Container bridge =
        deployment(resources, "turnstile-bridge")
            .getSpec()
            .getTemplate()
            .getSpec()
            .getContainers()
            .get(0);
    String prefix = bridge(resources, bridge).get(BridgeConfigModel.TOPIC_PREFIX);

    List<GenericKubernetesResource> topics = custom(resources, "KafkaTopic");
    Map<String, Map<String, Object>> specs = new HashMap<>();
    topics.forEach(
        t -> specs.put((String) ((Map<?, ?>) t.get("spec")).get("topicName"), t.get("spec")));
    // Every generation's topics, named as Generation names them: the raw ones are shared.
    Map<String, Topic> expected = new HashMap<>();
    for (Deployment topology : topologies(resources)) {
      TopologyConfig config = topology(resources, container(topology));
      assertThat(config.get(TopologyConfigModel.TOPIC_PREFIX)).isEqualTo(prefix);
      TopicCatalogue.ALL.forEach(t -> expected.put(config.topic(t), t));
    }
    assertThat(specs.keySet()).containsExactlyInAnyOrderElementsOf(expected.keySet());
    for (Map.Entry<String, Topic> named : expected.entrySet()) {
      Topic topic = named.getValue();
      Map<String, Object> spec = specs.get(named.getKey());
      @SuppressWarnings("unchecked")
      Map<String, Object> config = (Map<String, Object>) spec.get("config");
      int replicas = ((Number) spec.get("replicas")).intValue();
      assertThat(((Number) spec.get("partitions")).intValue()).isEqualTo(topic.partitions());
      assertThat(String.valueOf(config.get("retention.ms")))
          .isEqualTo(Long.toString(topic.retentionMs()));
      assertThat(config.get("cleanup.policy")).isEqualTo(topic.cleanupPolicy());
      Object minIsr = config.get("min.insync.replicas");
      assertThat(minIsr == null ? null : String.valueOf(minIsr))
          .as(topic.baseName() + " min.insync.replicas for " + replicas + " replicas")
          .isEqualTo(
              Topic.minInSyncReplicas(replicas).isPresent()
                  ? Integer.toString(Topic.minInSyncReplicas(replicas).getAsInt())
                  : null);
    }
  }

  @ParameterizedTest
  @MethodSource("overlays")
  void kafkaUsersMayWriteExactlyTheTopicsTheirProcessWrites(String overlay) throws Exception {
    List<HasMetadata> resources = render("k8s/overlays/" + overlay);
    for (String process : List.of("bridge", "topology")) {
      GenericKubernetesResource user =
          custom(resources, "KafkaUser").stream()
              .filter(u -> u.getMetadata().getName().equals("turnstile-" + process))
              .findFirst()
              .orElseThrow();
      Set<String> writable = new TreeSet<>();
      Set<String> readable = new TreeSet<>();
      @SuppressWarnings("unchecked")
      List<Map<String, Object>> acls =
          (List<Map<String, Object>>)
              ((Map<?, ?>) ((Map<?, ?>) user.get("spec")).get("authorization")).get("acls");
      for (Map<String, Object> acl : acls) {
        @SuppressWarnings("unchecked")
        Map<String, Object> resource = (Map<String, Object>) acl.get("resource");
        @SuppressWarnings("unchecked")
        List<String> operations = (List<String>) acl.get("operations");
        assertThat(operations).as("no All: least privilege").doesNotContain("All");
        if ("topic".equals(resource.get("type")) && "literal".equals(resource.get("patternType"))) {
          if (operations.contains("Write")) {
            writable.add((String) resource.get("name"));
          }
          if (operations.contains("Read")) {
            readable.add((String) resource.get("name"));
          }
        }
      }
      assertThat(writable)
          .as(process + " writes")
          .containsExactlyInAnyOrderElementsOf(
              TopicCatalogue.ALL.stream()
                  .filter(t -> t.writtenBy().equals(process))
                  .map(Topic::baseName)
                  .toList());
      if (process.equals("bridge")) {
        assertThat(readable).isEmpty();
      } else {
        TopologyConfig config =
            topology(
                resources,
                deployment(resources, "turnstile-topology")
                    .getSpec()
                    .getTemplate()
                    .getSpec()
                    .getContainers()
                    .get(0));
        assertThat(readable)
            .as("topology reads: the topics of its source nodes")
            .containsExactlyInAnyOrderElementsOf(TopologyApplication.sourceTopics(config));
        String applicationId = config.applicationId();
        List<String> prefixed = new ArrayList<>();
        for (Map<String, Object> acl : acls) {
          @SuppressWarnings("unchecked")
          Map<String, Object> resource = (Map<String, Object>) acl.get("resource");
          if ("prefix".equals(resource.get("patternType"))) {
            prefixed.add(resource.get("type") + ":" + resource.get("name"));
          }
        }
        assertThat(prefixed)
            .as("internal topics and transactional ids under application.id")
            .containsExactlyInAnyOrder(
                "topic:" + applicationId + "-", "transactionalId:" + applicationId + "-");
      }
    }
  }

  /**
   * A further generation's KafkaUser (named as its Deployment) reads the raw topics and owns what
   * carries its names: its output topics, its internal topics and transactional ids, its group;
   * nothing of another generation.
   */
  @ParameterizedTest
  @MethodSource("overlays")
  void eachFurtherGenerationsKafkaUserOwnsExactlyItsOwnNames(String overlay) throws Exception {
    List<HasMetadata> resources = render("k8s/overlays/" + overlay);
    for (Deployment topology : topologies(resources)) {
      TopologyConfig config = topology(resources, container(topology));
      if (config.generation().isDefault()) {
        continue;
      }
      String name = topology.getMetadata().getName();
      GenericKubernetesResource user =
          custom(resources, "KafkaUser").stream()
              .filter(u -> u.getMetadata().getName().equals(name))
              .findFirst()
              .orElseThrow(() -> new AssertionError("no KafkaUser " + name));
      assertThat(
              container(topology).getEnv().stream()
                  .filter(e -> e.getValueFrom() != null)
                  .map(e -> e.getValueFrom().getSecretKeyRef().getName()))
          .as(name + " uses its own user's Secret")
          .containsOnly(name);
      @SuppressWarnings("unchecked")
      List<Map<String, Object>> acls =
          (List<Map<String, Object>>)
              ((Map<?, ?>) ((Map<?, ?>) user.get("spec")).get("authorization")).get("acls");
      List<String> granted = new ArrayList<>();
      for (Map<String, Object> acl : acls) {
        @SuppressWarnings("unchecked")
        Map<String, Object> resource = (Map<String, Object>) acl.get("resource");
        @SuppressWarnings("unchecked")
        List<String> operations = (List<String>) acl.get("operations");
        granted.add(
            resource.get("type")
                + ":"
                + resource.get("patternType")
                + ":"
                + resource.get("name")
                + ":"
                + operations.contains("Write"));
      }
      String generation = config.generation().name();
      String applicationId = config.applicationId();
      assertThat(granted)
          .containsExactlyInAnyOrder(
              "topic:literal:" + config.topic(TopicCatalogue.DEVICE_EVENTS_RAW) + ":false",
              "topic:literal:" + config.topic(TopicCatalogue.SERVICEBUS_MESSAGES_RAW) + ":false",
              "topic:prefix:"
                  + config.get(TopologyConfigModel.TOPIC_PREFIX)
                  + generation
                  + ".:true",
              "topic:prefix:" + applicationId + "-:true",
              "group:literal:" + applicationId + ":false",
              "transactionalId:prefix:" + applicationId + "-:true");
      for (Topic output : dev.turnstile.schemas.Generation.outputs()) {
        assertThat(config.topic(output))
            .startsWith(config.get(TopologyConfigModel.TOPIC_PREFIX) + generation + ".");
      }
      assertThat(applicationId + "-").doesNotStartWith("turnstile-topology-");
    }
  }

  /**
   * The HTTPS component: the TLS Secret mounted as a whole volume (a subPath mount would never see
   * a renewed certificate), the bridge pointed at its files, and every probe over HTTPS (plain HTTP
   * gets no answer from a TLS port, so the pod would never turn ready).
   */
  @org.junit.jupiter.api.Test
  void theHttpsOverlayMountsTheTlsSecretAndProbesOverHttps() throws Exception {
    List<HasMetadata> resources = render("k8s/overlays/prod-https");
    var pod = deployment(resources, "turnstile-bridge").getSpec().getTemplate().getSpec();
    var container = pod.getContainers().get(0);
    var mount =
        container.getVolumeMounts().stream()
            .filter(m -> m.getName().equals("https"))
            .findFirst()
            .orElseThrow();
    assertThat(mount.getSubPath()).as("whole volume, so renewals arrive").isNull();
    assertThat(
            pod.getVolumes().stream()
                .filter(v -> v.getName().equals("https"))
                .findFirst()
                .orElseThrow()
                .getSecret()
                .getSecretName())
        .isEqualTo("turnstile-bridge-tls");
    Map<String, String> env = new java.util.HashMap<>();
    container.getEnv().stream()
        .filter(e -> e.getValue() != null)
        .forEach(e -> env.put(e.getName(), e.getValue()));
    assertThat(env)
        .containsEntry("TURNSTILE_BRIDGE_HTTP_TLS_ENABLED", "true")
        .containsEntry(
            "TURNSTILE_BRIDGE_HTTP_TLS_CERTIFICATE_FILE", mount.getMountPath() + "/tls.crt")
        .containsEntry("TURNSTILE_BRIDGE_HTTP_TLS_KEY_FILE", mount.getMountPath() + "/tls.key");
    for (Probe probe :
        List.of(
            container.getStartupProbe(),
            container.getLivenessProbe(),
            container.getReadinessProbe())) {
      assertThat(probe.getHttpGet().getScheme()).isEqualTo("HTTPS");
    }
    GenericKubernetesResource monitor =
        custom(resources, "ServiceMonitor").stream()
            .filter(m -> m.getMetadata().getName().equals("turnstile-bridge"))
            .findFirst()
            .orElseThrow();
    @SuppressWarnings("unchecked")
    Map<String, Object> endpoint =
        ((List<Map<String, Object>>) ((Map<?, ?>) monitor.get("spec")).get("endpoints")).get(0);
    assertThat(endpoint).containsEntry("scheme", "https");
  }

  /**
   * KEDA scales the topology on the lag of its own consumer group over every topic it reads: no
   * topic is named (KEDA then sums every partition the group has offsets for), and the group and
   * the brokers are the topology's application id and bootstrap servers, copied from its ConfigMap.
   * Rendered here as an operator would deploy it under another prefix and application id: the
   * overlay of production plus its own ConfigMap values.
   */
  @org.junit.jupiter.api.Test
  void theScaledObjectFollowsTheTopologysGroupOnEveryTopicItReads() throws Exception {
    Path overlay = Files.createDirectories(REPOSITORY.resolve("local/target/k8s-acme"));
    Path base = overlay.relativize(REPOSITORY.resolve("k8s"));
    Files.writeString(
        overlay.resolve("kustomization.yaml"),
        String.join(
            "\n",
            "apiVersion: kustomize.config.k8s.io/v1beta1",
            "kind: Kustomization",
            "resources:",
            "  - " + base.resolve("base"),
            "components:",
            "  - " + base.resolve("components/autoscaling"),
            "configMapGenerator:",
            "  - name: turnstile-topology",
            "    behavior: merge",
            "    literals:",
            "      - TURNSTILE_TOPIC_PREFIX=acme.",
            "      - TURNSTILE_TOPOLOGY_APPLICATION_ID=acme-topology",
            "      - TURNSTILE_KAFKA_BOOTSTRAP_SERVERS=kafka.acme.svc:9093",
            ""));
    List<String> renderings = new ArrayList<>(List.of("local/target/k8s-acme"));
    overlays().filter(o -> o.equals("prod")).forEach(o -> renderings.add("k8s/overlays/" + o));
    for (String directory : renderings) {
      List<HasMetadata> resources = render(directory);
      Container container =
          deployment(resources, "turnstile-topology")
              .getSpec()
              .getTemplate()
              .getSpec()
              .getContainers()
              .get(0);
      TopologyConfig config = topology(resources, container);
      GenericKubernetesResource scaled =
          custom(resources, "ScaledObject").stream()
              .filter(r -> r.getMetadata().getName().equals("turnstile-topology"))
              .findFirst()
              .orElseThrow(() -> new AssertionError(directory + ": no ScaledObject"));
      Map<String, Object> spec = scaled.get("spec");
      @SuppressWarnings("unchecked")
      List<Map<String, Object>> triggers = (List<Map<String, Object>>) spec.get("triggers");
      assertThat(triggers).as(directory).singleElement();
      assertThat(triggers.get(0)).containsEntry("type", "kafka");
      @SuppressWarnings("unchecked")
      Map<String, Object> metadata = (Map<String, Object>) triggers.get(0).get("metadata");
      assertThat(metadata)
          .as(directory + ": every topic the group reads, none named")
          .doesNotContainKey("topic")
          .containsEntry("consumerGroup", config.applicationId())
          .containsEntry("bootstrapServers", config.get(TopologyConfigModel.BOOTSTRAP_SERVERS));
    }
  }

  @org.junit.jupiter.api.Test
  void theTopicManifestsRenderOnTheirOwn() throws Exception {
    assertThat(custom(render("k8s/topics"), "KafkaTopic")).hasSize(TopicCatalogue.ALL.size());
  }
}
