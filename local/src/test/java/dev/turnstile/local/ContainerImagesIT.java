package dev.turnstile.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.turnstile.runtime.topics.TopicSpec;
import dev.turnstile.testkit.EmbeddedKafka;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
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
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Issue 25, item 6: both container images, built with podman from their unchanged Dockerfiles, run
 * as Kubernetes runs them (k8s/overlays/prod): their entrypoint, from the image's own filesystem
 * seen read-only, as the image's user (uid 10001), with only the Deployment's emptyDir mounts
 * writable; each reaches the test broker and answers {@code /health/ready}. The image's layout
 * (user, entrypoint, JVM flags, port, state directory, logging configuration) is what the manifests
 * expect.
 *
 * <p>No container runtime runs here (crun and runc are refused by the sandbox), so the parts of one
 * this needs are done by hand, as the field notes describe: the JRE base is made from Debian's
 * packages ({@code local/src/test/sh/jre-base.sh}: debootstrap, then {@code podman import}; kept
 * between runs), the image's filesystem is {@code podman image mount}ed, stacked read-only under a
 * layer holding the {@code /etc/hosts} a runtime would inject, given its writable mounts, {@code
 * /proc} and {@code /dev} in a mount namespace of its own, and the entrypoint is started with
 * {@code chroot --userspec}. Needs podman and root (or password-less sudo); the build runs it only
 * where {@code /usr/bin/podman} exists ({@code -DskipImages} leaves it out), see local/pom.xml.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ContainerImagesIT {

  static final Path REPOSITORY = Path.of("..").toAbsolutePath().normalize();

  /** Makes the JRE base once per machine (or waits for the run CI started early). */
  static final Path JRE_BASE = REPOSITORY.resolve("local/src/test/sh/jre-base.sh");

  static final HttpClient HTTP = HttpClient.newHttpClient();

  final Path work = REPOSITORY.resolve("local/target/container-images");
  EmbeddedKafka kafka;
  List<HasMetadata> production;
  final List<Process> running = new ArrayList<>();
  final List<String> mounted = new ArrayList<>();

  @BeforeAll
  void buildImagesAndStartKafka() throws Exception {
    Files.createDirectories(work);
    long started = System.nanoTime();
    List<String> made = run(JRE_BASE.toString()).strip().lines().toList();
    String base = made.get(made.size() - 1);
    long based = System.nanoTime();
    for (String process : List.of("bridge", "topology")) {
      run(
          "podman",
          "build",
          "--isolation=chroot",
          "--from",
          base,
          "-f",
          REPOSITORY.resolve(process + "/Dockerfile").toString(),
          "-t",
          image(process),
          REPOSITORY.toString());
    }
    System.out.printf(
        "ContainerImagesIT: JRE base %s ready after %d s, both images built in %d s%n",
        base,
        TimeUnit.NANOSECONDS.toSeconds(based - started),
        TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - based));
    production = KubernetesManifestsTest.render("k8s/overlays/prod");
    kafka = EmbeddedKafka.start(work.resolve("kafka"));
    kafka.createTopics(
        TopicSpec.catalogue("", (short) 1).stream().map(TopicSpec::toNewTopic).toList());
  }

  @AfterAll
  void stop() throws Exception {
    for (Process process : running) {
      process.destroy();
      if (!process.waitFor(45, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    }
    for (String image : mounted) {
      succeeds("podman", "image", "unmount", image);
    }
    for (String process : List.of("bridge", "topology")) {
      succeeds("podman", "rmi", "--force", image(process));
    }
    if (kafka != null) {
      kafka.close();
    }
  }

  @Test
  void theBridgeImageRunsAsKubernetesRunsItAndTurnsReady() throws Exception {
    Map<String, String> env = new LinkedHashMap<>();
    env.put("TURNSTILE_BRIDGE_AUTH_ENABLED", "false");
    runAndAwaitReady("bridge", "turnstile-bridge", env);
  }

  @Test
  void theTopologyImageRunsAsKubernetesRunsItAndTurnsReady() throws Exception {
    Map<String, String> env = new LinkedHashMap<>();
    env.put("TURNSTILE_TOPOLOGY_NUM_STANDBY_REPLICAS", "0");
    runAndAwaitReady("topology", "turnstile-topology", env);
  }

  /**
   * Checks the image against its Deployment, then runs the image's entrypoint from its read-only
   * filesystem with the Deployment's writable mounts, and waits for {@code /health/ready}.
   */
  private void runAndAwaitReady(String process, String deployment, Map<String, String> testEnv)
      throws Exception {
    JsonNode config =
        new ObjectMapper()
            .readTree(
                run("podman", "image", "inspect", "--format", "{{json .Config}}", image(process)));
    PodSpec pod =
        KubernetesManifestsTest.deployment(production, deployment)
            .getSpec()
            .getTemplate()
            .getSpec();
    Container container = pod.getContainers().get(0);
    Path root = Path.of(run("podman", "image", "mount", image(process)).strip());
    mounted.add(image(process));

    assertLayoutIsWhatKubernetesExpects(process, config, pod, container, root);

    int port = freePort();
    Map<String, String> env = new LinkedHashMap<>();
    config
        .path("Env")
        .forEach(e -> env.put(e.asText().split("=", 2)[0], e.asText().split("=", 2)[1]));
    env.put("TURNSTILE_KAFKA_BOOTSTRAP_SERVERS", kafka.bootstrapServers());
    env.put("TURNSTILE_" + process.toUpperCase() + "_HTTP_HOST", "127.0.0.1");
    env.put("TURNSTILE_" + process.toUpperCase() + "_HTTP_PORT", Integer.toString(port));
    // The image's MaxRAMPercentage is of the container's memory limit; here, with no limit, of the
    // machine's: a cap for this shared machine only.
    env.put("TURNSTILE_JAVA_OPTS", "-Xmx256m");
    env.putAll(testEnv);

    Path dir = Files.createDirectories(work.resolve(process));
    Path script = writeRunScript(dir, root, pod, container, config, env);
    Process started =
        new ProcessBuilder(
                asRoot("unshare", "--mount", "--propagation", "private", "sh", script.toString()))
            .redirectOutput(dir.resolve("stdout.log").toFile())
            .redirectError(dir.resolve("stderr.log").toFile())
            .start();
    running.add(started);
    long since = System.nanoTime();
    await()
        .atMost(Duration.ofSeconds(180))
        .pollInterval(Duration.ofMillis(250))
        .until(() -> status(port, "/health/ready") == 200 || !started.isAlive());
    assertThat(started.isAlive()).as(log(dir)).isTrue();
    System.out.printf(
        "ContainerImagesIT: %s from its image ready after %d s%n",
        process, TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - since));
    assertThat(log(dir)).as("the image's user").doesNotContain("Permission denied");

    started.destroy();
    assertThat(started.waitFor(45, TimeUnit.SECONDS)).as("stops on SIGTERM").isTrue();
  }

  private static void assertLayoutIsWhatKubernetesExpects(
      String process, JsonNode config, PodSpec pod, Container container, Path root) {
    String user =
        pod.getSecurityContext().getRunAsUser() + ":" + pod.getSecurityContext().getRunAsGroup();
    assertThat(config.path("User").asText())
        .as("USER = the pod's runAsUser:runAsGroup")
        .isEqualTo(user);
    assertThat(container.getCommand()).as("Kubernetes runs the image's entrypoint").isNullOrEmpty();
    String entrypoint = "/opt/turnstile/bin/turnstile-" + process;
    assertThat(config.path("Entrypoint").get(0).asText()).isEqualTo(entrypoint);
    assertThat(root.resolve(entrypoint.substring(1))).isExecutable();
    assertThat(root.resolve("opt/turnstile/config/logback.xml"))
        .as("the entrypoint's logging configuration")
        .isRegularFile();
    assertThat(
            config
                .path("ExposedPorts")
                .has(container.getPorts().get(0).getContainerPort() + "/tcp"))
        .as("EXPOSE = the container port")
        .isTrue();
    String imageJavaOpts = env(config, "JAVA_OPTS");
    String podJavaOpts =
        container.getEnv().stream()
            .filter(e -> e.getName().equals("JAVA_OPTS"))
            .map(EnvVar::getValue)
            .findFirst()
            .orElse(imageJavaOpts);
    assertThat(imageJavaOpts)
        .as("the image's JVM flags are the Deployment's")
        .isEqualTo(podJavaOpts);
    for (VolumeMount mount : writableMounts(pod, container)) {
      assertThat(root.resolve(mount.getMountPath().substring(1)))
          .as("mount point of the emptyDir " + mount.getName())
          .isDirectory();
    }
    if (process.equals("topology")) {
      String stateDir = env(config, "TURNSTILE_TOPOLOGY_STATE_DIR");
      assertThat(config.path("Volumes").has(stateDir)).as("VOLUME = the state directory").isTrue();
      assertThat(writableMounts(pod, container))
          .extracting(VolumeMount::getMountPath)
          .as("the state directory is an emptyDir")
          .contains(stateDir);
    }
  }

  /** The container's mounts of emptyDir volumes: all it may write on a read-only root. */
  private static List<VolumeMount> writableMounts(PodSpec pod, Container container) {
    Map<String, Volume> volumes =
        pod.getVolumes().stream().collect(Collectors.toMap(Volume::getName, v -> v));
    return container.getVolumeMounts().stream()
        .filter(m -> volumes.get(m.getName()).getEmptyDir() != null)
        .toList();
  }

  /**
   * A shell script that, in its own mount namespace, stacks the image's filesystem read-only under
   * a layer with {@code /etc/hosts}, mounts the Deployment's emptyDirs ({@code /tmp} as a tmpfs,
   * the others as directories owned by the pod's fsGroup), {@code /proc} and {@code /dev}, and
   * starts the entrypoint as the image's user with the image's environment only.
   */
  private Path writeRunScript(
      Path dir,
      Path root,
      PodSpec pod,
      Container container,
      JsonNode config,
      Map<String, String> env)
      throws IOException, InterruptedException {
    Path injected = Files.createDirectories(dir.resolve("injected/etc"));
    Files.copy(
        Path.of("/etc/hosts"),
        injected.resolve("hosts"),
        java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    Path view = Files.createDirectories(dir.resolve("view"));
    String owner =
        pod.getSecurityContext().getRunAsUser() + ":" + pod.getSecurityContext().getFsGroup();
    List<String> lines = new ArrayList<>();
    lines.add("set -eu");
    lines.add(
        "mount -t overlay overlay -o lowerdir="
            + dir.resolve("injected")
            + ":"
            + root
            + " "
            + view);
    for (VolumeMount mount : writableMounts(pod, container)) {
      Path target = view.resolve(mount.getMountPath().substring(1));
      if (mount.getMountPath().equals("/tmp")) {
        lines.add("mount -t tmpfs -o size=256m,mode=1777 tmpfs " + target);
      } else {
        Path volume = Files.createDirectories(dir.resolve("volumes/" + mount.getName()));
        run("chown", owner, volume.toString());
        lines.add("mount --bind " + volume + " " + target);
      }
    }
    lines.add("mount -t proc proc " + view.resolve("proc"));
    lines.add("mount --bind /dev " + view.resolve("dev"));
    // Kubernetes' readOnlyRootFilesystem: not even root can write the image's filesystem.
    lines.add(
        "if chroot "
            + view
            + " /bin/sh -c 'echo > /probe' 2>/dev/null; then"
            + " echo 'the root filesystem is writable' >&2; exit 1; fi");
    StringBuilder exec =
        new StringBuilder(
            "exec chroot --userspec=" + config.path("User").asText() + " " + view + " env -i");
    env.forEach(
        (name, value) -> exec.append(" '").append(name).append('=').append(value).append('\''));
    config.path("Entrypoint").forEach(part -> exec.append(" '").append(part.asText()).append('\''));
    lines.add(exec.toString());
    Path script = dir.resolve("run.sh");
    Files.write(script, lines, StandardCharsets.UTF_8);
    return script;
  }

  private static String image(String process) {
    return "localhost/turnstile-" + process + ":it";
  }

  private static String env(JsonNode config, String name) {
    for (JsonNode entry : config.path("Env")) {
      if (entry.asText().startsWith(name + "=")) {
        return entry.asText().substring(name.length() + 1);
      }
    }
    throw new AssertionError("the image sets no " + name);
  }

  private static String log(Path dir) {
    try {
      return Files.readString(dir.resolve("stderr.log"))
          + Files.readString(dir.resolve("stdout.log"));
    } catch (IOException e) {
      return "(no log: " + e + ")";
    }
  }

  /** Runs {@code command} as root (through {@code sudo -n} unless this JVM is root). */
  private static String run(String... command) throws IOException, InterruptedException {
    Process process = new ProcessBuilder(asRoot(command)).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(20, TimeUnit.MINUTES)).as(String.join(" ", command)).isTrue();
    assertThat(process.exitValue()).as(String.join(" ", command) + ": " + output).isZero();
    return output;
  }

  private static boolean succeeds(String... command) throws IOException, InterruptedException {
    Process process = new ProcessBuilder(asRoot(command)).redirectErrorStream(true).start();
    process.getInputStream().readAllBytes();
    return process.waitFor(5, TimeUnit.MINUTES) && process.exitValue() == 0;
  }

  /**
   * podman image mount, mount namespaces and chroot need root: as is when this JVM is root (a CI
   * container), else through {@code sudo -n} (a CI runner with password-less sudo).
   */
  private static List<String> asRoot(String... command) {
    List<String> full = new ArrayList<>();
    if (!"root".equals(System.getProperty("user.name"))) {
      full.addAll(List.of("sudo", "-n"));
    }
    full.addAll(List.of(command));
    return full;
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }

  private static int status(int port, String path) {
    try {
      return HTTP.send(
              HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
              HttpResponse.BodyHandlers.discarding())
          .statusCode();
    } catch (IOException e) {
      return -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
  }
}
