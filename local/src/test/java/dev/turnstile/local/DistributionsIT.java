package dev.turnstile.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.turnstile.schemas.TopicCatalogue;
import dev.turnstile.testkit.EmbeddedKafka;
import java.io.File;
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
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The two distributions as a platform runs them: unpacked {@code bin/} + {@code lib/}, each process
 * its own JVM, configured only by environment, against a real broker. The topics come from the
 * distribution's {@code turnstile-topics}; a Started and a Finished posted over HTTP come out as a
 * closed session in {@code device-sessions.v1}, read {@code read_committed}. Every script logs to
 * stderr and keeps stdout for its own output (the topics report, the device's token).
 */
class DistributionsIT {

  static final Path REPOSITORY = Path.of("..").toAbsolutePath().normalize();
  static final Path BRIDGE = REPOSITORY.resolve("bridge/target/turnstile-bridge");
  static final Path TOPOLOGY = REPOSITORY.resolve("topology/target/turnstile-topology");
  static final HttpClient HTTP = HttpClient.newHttpClient();

  static EmbeddedKafka kafka;
  @TempDir static Path work;
  static final List<Process> processes = new ArrayList<>();

  @BeforeAll
  static void start() {
    kafka = EmbeddedKafka.start(work.resolve("kafka"), Map.of("auto.create.topics.enable", "true"));
  }

  @AfterAll
  static void stop() {
    processes.forEach(Process::destroyForcibly);
    kafka.close();
  }

  static Process launch(Path distribution, String script, Map<String, String> env, String... args)
      throws IOException {
    return launch(distribution, script, script, env, args);
  }

  /** As above, its output in files named {@code name}, for {@link #stdout} and {@link #stderr}. */
  static Process launch(
      Path distribution, String script, String name, Map<String, String> env, String... args)
      throws IOException {
    List<String> command = new ArrayList<>();
    command.add(distribution.resolve("bin").resolve(script).toString());
    command.addAll(List.of(args));
    ProcessBuilder builder = new ProcessBuilder(command);
    builder.environment().keySet().removeIf(variable -> variable.startsWith("TURNSTILE_"));
    builder.environment().putAll(env);
    builder.environment().put("JAVA_OPTS", "-Xmx256m");
    builder.redirectOutput(work.resolve(name + ".out").toFile());
    builder.redirectError(work.resolve(name + ".err").toFile());
    Process process = builder.start();
    processes.add(process);
    return process;
  }

  /** What the script wrote on stderr (its logs), then on stdout. */
  static String log(String script) throws IOException {
    return stderr(script) + stdout(script);
  }

  static String stdout(String script) throws IOException {
    return read(work.resolve(script + ".out").toFile());
  }

  static String stderr(String script) throws IOException {
    return read(work.resolve(script + ".err").toFile());
  }

  private static String read(File file) throws IOException {
    return file.exists() ? Files.readString(file.toPath(), StandardCharsets.UTF_8) : "";
  }

  static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }

  static int get(int port, String path) {
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

  @Test
  void eachDistributionHoldsItsRuntimeClasspathAndNoTestJar() throws IOException {
    for (Path distribution : List.of(BRIDGE, TOPOLOGY)) {
      assertThat(distribution.resolve("lib")).isDirectory();
      try (Stream<Path> jars = Files.list(distribution.resolve("lib"))) {
        List<String> names = jars.map(p -> p.getFileName().toString()).toList();
        assertThat(names)
            .as(distribution.toString())
            .anyMatch(n -> n.startsWith("kafka-clients-"))
            .noneMatch(
                n ->
                    n.contains("-tests")
                        || n.contains("testkit")
                        || n.contains("junit")
                        || n.contains("kafka-test-common")
                        || n.contains("kafka-clients-4.3.1-test")
                        || n.contains("assertj"));
      }
      assertThat(distribution.resolve("config/logback.xml")).isRegularFile();
    }
  }

  @Test
  void bothProcessesRunFromTheirDistributionsAndCarryASessionThrough() throws Exception {
    String bootstrap = kafka.bootstrapServers();
    Process topics =
        launch(TOPOLOGY, "turnstile-topics", Map.of(), "--bootstrap", bootstrap, "--replicas", "1");
    assertThat(topics.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(topics.exitValue()).as(log("turnstile-topics")).isZero();

    int topologyPort = freePort();
    Process topology =
        launch(
            TOPOLOGY,
            "turnstile-topology",
            Map.of(
                "TURNSTILE_KAFKA_BOOTSTRAP_SERVERS",
                bootstrap,
                "TURNSTILE_TOPOLOGY_STATE_DIR",
                work.resolve("streams").toString(),
                "TURNSTILE_TOPOLOGY_NUM_STANDBY_REPLICAS",
                "0",
                "TURNSTILE_TOPOLOGY_HTTP_HOST",
                "127.0.0.1",
                "TURNSTILE_TOPOLOGY_HTTP_PORT",
                Integer.toString(topologyPort)));
    // The device's credential, issued as an operator would: the token printed once, the line
    // appended to the credentials file the bridge reads.
    Path credentials = work.resolve("device-credentials");
    Process issue =
        launch(
            BRIDGE,
            "turnstile-device-token",
            Map.of(),
            "station-d",
            "--append",
            credentials.toString());
    assertThat(issue.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(issue.exitValue()).as(log("turnstile-device-token")).isZero();
    String token =
        stdout("turnstile-device-token").lines().skip(1).findFirst().orElseThrow().strip();
    int bridgePort = freePort();
    Process bridge =
        launch(
            BRIDGE,
            "turnstile-bridge",
            Map.of(
                "TURNSTILE_BRIDGE_AUTH_CREDENTIALS_FILE",
                credentials.toString(),
                "TURNSTILE_KAFKA_BOOTSTRAP_SERVERS",
                bootstrap,
                "TURNSTILE_BRIDGE_HTTP_HOST",
                "127.0.0.1",
                "TURNSTILE_BRIDGE_HTTP_PORT",
                Integer.toString(bridgePort),
                "TURNSTILE_BRIDGE_KAFKA_READINESS_INTERVAL_MS",
                "500"));

    await()
        .atMost(Duration.ofSeconds(120))
        .until(() -> get(topologyPort, "/health/ready") == 200 || !topology.isAlive());
    assertThat(topology.isAlive()).as(log("turnstile-topology")).isTrue();
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> get(bridgePort, "/health/ready") == 200 || !bridge.isAlive());
    assertThat(bridge.isAlive()).as(log("turnstile-bridge")).isTrue();

    assertThat(post(bridgePort, null, "e-start", "Started", "2024-05-01T08:00:00Z"))
        .as("without the token")
        .isEqualTo(401);
    assertThat(post(bridgePort, token, "e-start", "Started", "2024-05-01T08:00:00Z"))
        .isEqualTo(202);
    assertThat(post(bridgePort, token, "e-finish", "Finished", "2024-05-01T09:30:00Z"))
        .isEqualTo(202);

    List<ConsumerRecord<String, byte[]>> sessions =
        TopicReader.readUntil(
            bootstrap,
            TopicCatalogue.DEVICE_SESSIONS.baseName(),
            records -> records.stream().anyMatch(DistributionsIT::closedSession),
            Duration.ofSeconds(60));
    assertThat(sessions)
        .as(log("turnstile-topology"))
        .filteredOn(DistributionsIT::closedSession)
        .hasSize(1)
        .allSatisfy(
            r ->
                assertThat(new String(r.value(), StandardCharsets.UTF_8))
                    .contains("\"durationMillis\":5400000"));

    // The distribution's generation tool reads the running generation's status.
    Process status =
        launch(
            TOPOLOGY,
            "turnstile-generation",
            Map.of(),
            "status",
            "default",
            "--bootstrap",
            bootstrap);
    assertThat(status.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(log("turnstile-generation"))
        .contains("application id and consumer group turnstile-topology, STABLE")
        .contains("device-events.raw.v1");
    assertThat(status.exitValue()).as(log("turnstile-generation")).isIn(0, 4);

    bridge.destroy();
    topology.destroy();
    assertThat(bridge.waitFor(30, TimeUnit.SECONDS)).as("bridge stops on SIGTERM").isTrue();
    assertThat(topology.waitFor(40, TimeUnit.SECONDS)).as("topology stops on SIGTERM").isTrue();
    assertThat(stderr("turnstile-bridge")).contains("bridge stopped");
    assertThat(stderr("turnstile-topology")).contains("Kafka Streams state RUNNING");
    assertThat(stdout("turnstile-bridge")).as("logs go to stderr").isEmpty();
    assertThat(stdout("turnstile-topology")).as("logs go to stderr").isEmpty();
  }

  /**
   * The topology's own JVM, started by its script, without its topics (another prefix): it ends at
   * once with code 3 and one ERROR line on stderr naming the key, nothing on stdout.
   */
  @Test
  void aTopologyThatCannotStartEndsAtOnceNamingTheKey() throws Exception {
    String name = "turnstile-topology-without-topics";
    long started = System.nanoTime();
    Process topology =
        launch(
            TOPOLOGY,
            "turnstile-topology",
            name,
            Map.of(
                "TURNSTILE_KAFKA_BOOTSTRAP_SERVERS",
                kafka.bootstrapServers(),
                "TURNSTILE_TOPIC_PREFIX",
                "cannot.",
                "TURNSTILE_TOPOLOGY_TOPICS_WAIT_MS",
                "0",
                "TURNSTILE_TOPOLOGY_STATE_DIR",
                work.resolve("streams-without-topics").toString(),
                "TURNSTILE_TOPOLOGY_HTTP_HOST",
                "127.0.0.1",
                "TURNSTILE_TOPOLOGY_HTTP_PORT",
                "0"));

    assertThat(topology.waitFor(60, TimeUnit.SECONDS)).as(log(name)).isTrue();
    System.out.printf(
        "DistributionsIT: the topology ended %d ms after its script started%n",
        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
    assertThat(topology.exitValue()).as(log(name)).isEqualTo(3);
    assertThat(stderr(name)).contains("ERROR").contains("topology.topics.wait-ms");
    assertThat(stdout(name)).as("logs go to stderr").isEmpty();
  }

  static boolean closedSession(ConsumerRecord<String, byte[]> record) {
    String value = new String(record.value(), StandardCharsets.UTF_8);
    return "station-d".equals(record.key()) && value.contains("\"Closed\"");
  }

  static int post(int port, String token, String eventId, String type, String occurredAt)
      throws Exception {
    String body =
        "{\"eventId\":\"%s\",\"type\":\"%s\",\"occurredAt\":\"%s\",\"sessionRef\":\"s-1\"}"
            .formatted(eventId, type, occurredAt);
    HttpRequest.Builder request =
        HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + port + "/api/v1/devices/station-d/events"))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body));
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    return HTTP.send(request.build(), HttpResponse.BodyHandlers.discarding()).statusCode();
  }
}
