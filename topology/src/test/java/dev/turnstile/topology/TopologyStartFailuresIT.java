package dev.turnstile.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.turnstile.runtime.cli.ExitCode;
import dev.turnstile.runtime.topics.TopicSpec;
import dev.turnstile.testkit.EmbeddedKafka;
import dev.turnstile.topology.config.TopologyConfig;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.Writer;
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
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * Issue 25, item 2: a topology that cannot start ends within seconds with an exit code and one
 * ERROR line naming the cause and the key to change, at every stage of its start-up, instead of
 * staying live and unready. Each test injects a real failure at one stage and runs the process
 * through its main entry ({@link TopologyMain#run}, whose code {@code main} hands to {@code
 * System.exit}); the locked state directory is the real case of two processes, the second a child
 * JVM whose own exit code is checked.
 */
class TopologyStartFailuresIT {

  /** "Within seconds" on a loaded two-core machine; each run prints how long it took. */
  static final Duration PROMPTLY = Duration.ofSeconds(30);

  static final String PREFIX = "start.";

  @TempDir static Path home;
  static EmbeddedKafka kafka;

  private final ListAppender<ILoggingEvent> errors = new ListAppender<>();
  private final List<AutoCloseable> running = new ArrayList<>();

  @BeforeAll
  static void startKafka() {
    kafka = EmbeddedKafka.start(home.resolve("kafka"));
    kafka.createTopics(
        TopicSpec.catalogue(PREFIX, (short) 1).stream().map(TopicSpec::toNewTopic).toList());
  }

  @AfterAll
  static void stopKafka() {
    kafka.close();
  }

  @BeforeEach
  void captureErrors() {
    errors.start();
    ((Logger) LoggerFactory.getLogger("dev.turnstile.topology")).addAppender(errors);
  }

  @AfterEach
  void stop() throws Exception {
    ((Logger) LoggerFactory.getLogger("dev.turnstile.topology")).detachAppender(errors);
    for (AutoCloseable closeable : running) {
      closeable.close();
    }
  }

  @Test
  void aBadValueEndsWithTheConfigCodeNamingTheKey() throws Exception {
    Map<String, String> values = settings("bad-value");
    values.put("topology.http.port", "eighty");

    Run run = run(values);

    assertThat(run.code()).isEqualTo(ExitCode.CONFIG);
    assertThat(run.err()).contains("topology.http.port");
  }

  @Test
  void aTakenHttpPortEndsNamingTheKey() throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      Map<String, String> values = settings("port");
      values.put("topology.http.port", Integer.toString(taken.getLocalPort()));

      Run run = run(values);

      assertThat(run.code()).isEqualTo(ExitCode.FAILURE);
      assertThat(run.error()).contains("topology.http.port").contains("in use");
    }
  }

  @Test
  void topicsStillMissingAfterTheWaitEndWithTheTopicsCodeNamingTheKey() throws Exception {
    Map<String, String> values = settings("topics");
    values.put("topic.prefix", "missing.");
    values.put("topology.topics.wait-ms", "1000");

    Run run = run(values);

    assertThat(run.code()).isEqualTo(ExitCode.TOPICS);
    assertThat(run.error()).contains("topology.topics.wait-ms").contains("missing.");
  }

  /**
   * A group a topology of another shape ran under (a release whose post-merge read
   * merge-results.v1) is refused before Kafka Streams joins it: a rolling update stops at the new
   * pods instead of mixing the two shapes in one group.
   */
  @Test
  void aGroupWithOffsetsOnATopicThisTopologyDoesNotReadEndsNamingTheTopicAndTheKey()
      throws Exception {
    Map<String, String> values = settings("shape");
    String mergeResults = PREFIX + "merge-results.v1";
    try (org.apache.kafka.clients.admin.Admin admin = kafka.admin()) {
      admin
          .alterConsumerGroupOffsets(
              "start-shape",
              Map.of(
                  new org.apache.kafka.common.TopicPartition(mergeResults, 0),
                  new org.apache.kafka.clients.consumer.OffsetAndMetadata(0)))
          .all()
          .get(30, TimeUnit.SECONDS);
    }

    Run run = run(values);

    assertThat(run.code()).isEqualTo(ExitCode.CONFIG);
    assertThat(run.error())
        .contains(mergeResults)
        .contains("topology.application-id")
        .contains("new generation");
  }

  /**
   * A group whose live members run another shape (here a consumer whose client id carries no shape,
   * as every instance of a release before shapes were marked) is refused before Kafka Streams joins
   * it: the same topics are read, so the committed offsets cannot tell, but the tasks would be
   * numbered otherwise. A rolling update stops at its first new pod.
   */
  @Test
  void aGroupWithMembersOfAnotherShapeEndsNamingThemAndTheKey() throws Exception {
    Map<String, String> values = settings("members");
    Map<String, Object> old = new java.util.HashMap<>();
    old.put("bootstrap.servers", kafka.bootstrapServers());
    old.put("group.id", "start-members");
    old.put("client.id", "start-members-0c1d-StreamThread-1-consumer");
    old.put("key.deserializer", org.apache.kafka.common.serialization.ByteArrayDeserializer.class);
    old.put(
        "value.deserializer", org.apache.kafka.common.serialization.ByteArrayDeserializer.class);
    try (var consumer = new org.apache.kafka.clients.consumer.KafkaConsumer<byte[], byte[]>(old)) {
      consumer.subscribe(List.of(PREFIX + "device-events.raw.v1"));
      long deadline = System.nanoTime() + PROMPTLY.toNanos();
      while (consumer.assignment().isEmpty() && System.nanoTime() < deadline) {
        consumer.poll(Duration.ofMillis(200));
      }
      assertThat(consumer.assignment()).as("the old member joined").isNotEmpty();

      Run run = run(values);

      assertThat(run.code()).isEqualTo(ExitCode.CONFIG);
      assertThat(run.error())
          .contains("start-members-0c1d-StreamThread-1-consumer")
          .contains("another shape")
          .contains("topology.application-id");
    }
  }

  @Test
  void aTopologyOfTheSameShapeMayJoinAndTheShapeReadsBackFromItsClientId() {
    TopologyConfig config = TopologyConfig.of(settings("same"));
    String clientId =
        TopologyApplication.streamsProperties(config).getProperty("client.id")
            + "-StreamThread-1-consumer";

    assertThat(TopologyApplication.shapeOfClient(clientId))
        .contains(TopologyApplication.shape(config));
    assertThat(TopologyApplication.shapeOfClient("start-0c1d-StreamThread-1-consumer")).isEmpty();
  }

  @Test
  void anUnwritableStateDirectoryEndsWithTheConfigCodeNamingTheKey() throws Exception {
    Path file = Files.writeString(home.resolve("a-file"), "not a directory");
    Map<String, String> values = settings("unwritable");
    values.put("topology.state-dir", file.resolve("streams").toString());

    Run run = run(values);

    assertThat(run.code()).isEqualTo(ExitCode.CONFIG);
    assertThat(run.error()).contains("topology.state-dir").contains(file.toString());
  }

  /**
   * Kafka Streams starts, then its stream thread fails for good: the broker refuses the producers'
   * transaction timeout (above its {@code transaction.max.timeout.ms}, 15 min by default). The
   * uncaught exception handler shuts the client down; the process ends at once, not at its next
   * topic check.
   */
  @Test
  void aStreamThreadThatFailsForGoodEndsTheProcessNamingTheKey() throws Exception {
    Map<String, String> values = settings("thread");
    values.put("topology.topics.check-interval-ms", "600000");
    values.put("kafka.streams.producer.transaction.timeout.ms", "900001");

    Run run = run(values);

    assertThat(run.code()).isEqualTo(ExitCode.CONFIG);
    assertThat(run.error()).contains("kafka.streams.producer.transaction.timeout.ms");
  }

  /** Liveness fails as soon as the process is ending on its own, before its probes close. */
  @Test
  void livenessFailsOnceTheProcessIsEnding() throws Exception {
    Path file = Files.writeString(home.resolve("another-file"), "not a directory");
    Map<String, String> values = settings("live");
    values.put("topology.state-dir", file.resolve("streams").toString());
    values.put("topology.http.host", "127.0.0.1");
    values.put("topology.http.port", "0");
    TopologyProcess process = TopologyProcess.start(TopologyConfig.of(new HashMap<>(values)));
    running.add(process);

    await().atMost(PROMPTLY).until(() -> process.exitCodeNow() != null);

    assertThat(process.exitCodeNow()).isEqualTo(ExitCode.CONFIG);
    assertThat(process.exitReason().message()).contains("topology.state-dir");
    assertThat(status(process.healthPort(), "/health/live")).isEqualTo(503);
    assertThat(status(process.healthPort(), "/health/ready")).isEqualTo(503);
  }

  /**
   * Two processes on one state directory: the first runs, the second (its own JVM, as on a host or
   * a shared volume) ends with code 1 naming the key, instead of answering live forever.
   */
  @Test
  void aStateDirectoryLockedByAnotherProcessEndsTheSecondNamingTheKey() throws Exception {
    Map<String, String> values = settings("locked");
    values.put("topology.http.host", "127.0.0.1");
    values.put("topology.http.port", "0");
    TopologyProcess first = TopologyProcess.start(TopologyConfig.of(new HashMap<>(values)));
    running.add(first);
    await().atMost(Duration.ofSeconds(90)).until(first::isReady);

    Path config = properties(values);
    Path output = home.resolve("second.log");
    Process second =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m",
                "-cp",
                System.getProperty("java.class.path"),
                TopologyMain.class.getName(),
                "--config",
                config.toString())
            .redirectErrorStream(true)
            .redirectOutput(output.toFile())
            .start();
    long started = System.nanoTime();
    boolean ended = second.waitFor(PROMPTLY.toSeconds() + 30, TimeUnit.SECONDS);
    String log = Files.readString(output, StandardCharsets.UTF_8);
    if (!ended) {
      second.destroyForcibly();
    }
    System.out.printf(
        "TopologyStartFailuresIT: second process on a locked state directory ended after %d ms%n",
        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));

    assertThat(ended).as(log).isTrue();
    assertThat(second.exitValue()).as(log).isEqualTo(ExitCode.FAILURE);
    assertThat(log)
        .contains("is locked by another Kafka Streams client")
        .contains("topology.state-dir");
    assertThat(first.isReady()).isTrue();
  }

  // --- running the process through its main entry ---

  record Run(int code, String err, String error) {}

  private Run run(Map<String, String> values) throws Exception {
    Path config = properties(values);
    Writer out = new StringWriter();
    Writer err = new StringWriter();
    long started = System.nanoTime();
    int code =
        TopologyMain.run(
            new String[] {"--config", config.toString()},
            Map.of(),
            new PrintWriter(out, true),
            new PrintWriter(err, true));
    long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
    String caller =
        StackWalker.getInstance()
            .walk(frames -> frames.skip(1).findFirst())
            .map(StackWalker.StackFrame::getMethodName)
            .orElseThrow();
    System.out.printf(
        "TopologyStartFailuresIT: %s ended with %d after %d ms%n", caller, code, millis);
    assertThat(Duration.ofMillis(millis)).isLessThan(PROMPTLY);
    List<String> lines =
        errors.list.stream()
            .filter(e -> e.getLevel() == Level.ERROR)
            .map(ILoggingEvent::getFormattedMessage)
            .toList();
    return new Run(code, err.toString(), String.join("\n", lines));
  }

  /** The settings of one process: its own application id and state directory, the test broker. */
  private static Map<String, String> settings(String name) {
    Map<String, String> values = new HashMap<>();
    values.put("kafka.bootstrap.servers", kafka.bootstrapServers());
    values.put("topic.prefix", PREFIX);
    values.put("topology.application-id", "start-" + name);
    values.put("topology.state-dir", home.resolve("streams-" + name).toString());
    values.put("topology.num-standby-replicas", "0");
    values.put("topology.http.host", "127.0.0.1");
    values.put("topology.http.port", "0");
    values.put("topology.topics.wait-ms", "10000");
    return values;
  }

  private static Path properties(Map<String, String> values) throws IOException {
    Properties properties = new Properties();
    properties.putAll(values);
    Path file = Files.createTempFile(home, "topology", ".properties");
    try (Writer writer = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
      properties.store(writer, null);
    }
    return file;
  }

  private static int status(int port, String path) throws Exception {
    return HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
            HttpResponse.BodyHandlers.discarding())
        .statusCode();
  }
}
