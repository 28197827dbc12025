package dev.turnstile.bench;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.turnstile.runtime.topics.TopicSpec;
import dev.turnstile.schemas.CloudEventHeaders;
import dev.turnstile.schemas.DeviceEvent;
import dev.turnstile.schemas.DeviceEventType;
import dev.turnstile.schemas.Json;
import dev.turnstile.schemas.TopicCatalogue;
import dev.turnstile.testkit.EmbeddedKafka;
import dev.turnstile.topology.TopologyProcess;
import dev.turnstile.topology.TopologyServer;
import dev.turnstile.topology.config.TopologyConfig;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.function.BooleanSupplier;
import org.HdrHistogram.Histogram;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Latency of the topology's queries, answered locally against forwarded to the key's owner: two
 * topology processes in this JVM on one in-process broker, state from {@code devices} stations
 * (each with one closed, merged session and one open), then one client asking each instance for
 * every key in turn, one request at a time on a keep-alive connection. Whether an answer was local
 * or routed is read from {@code Turnstile-Served-By}. Baseline in the same run: {@code GET
 * /health/live} on the same connection (HTTP alone, no state read).
 */
final class QueriesBenchmark {

  static final OffsetDateTime T0 = OffsetDateTime.parse("2014-11-18T15:40:26-08:00");

  private QueriesBenchmark() {}

  static void run(int devices, int rounds, Path out) throws Exception {
    Map<String, String> machine = Machine.describe();
    machine.put(
        "broker",
        "one KRaft node (KafkaClusterTestKit) in this JVM, beside both topology processes");
    machine.put("loadAverageAtStart", Machine.loadAverage());
    Path home = Files.createTempDirectory("turnstile-queries");
    System.out.printf(
        Locale.ROOT,
        "queries: %,d stations, %d rounds over every key from each of two instances%n",
        devices,
        rounds);
    Map<String, Histogram> figures = new LinkedHashMap<>();
    try (EmbeddedKafka kafka = EmbeddedKafka.start(home.resolve("kafka"))) {
      kafka.createTopics(
          TopicSpec.catalogue("", (short) 1).stream().map(TopicSpec::toNewTopic).toList());
      try (TopologyProcess a = TopologyProcess.start(config(kafka, home, "a"));
          TopologyProcess b = TopologyProcess.start(config(kafka, home, "b"))) {
        await(() -> a.isReady() && b.isReady(), Duration.ofMinutes(5));
        produce(kafka.bootstrapServers(), devices);
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        String lastKey = "/api/v1/merge/ref-" + (devices - 1) + "-a";
        await(() -> status(http, a, lastKey) == 200, Duration.ofMinutes(5));
        measure(http, List.of(a, b), devices, 1, new LinkedHashMap<>()); // warm-up, not recorded
        measure(http, List.of(a, b), devices, rounds, figures);
      }
    } finally {
      try (java.util.stream.Stream<Path> files = Files.walk(home)) {
        files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
    machine.put("loadAverageAtEnd", Machine.loadAverage());
    print(figures);
    write(out, devices, rounds, machine, figures);
  }

  private static void measure(
      HttpClient http,
      List<TopologyProcess> instances,
      int devices,
      int rounds,
      Map<String, Histogram> figures)
      throws Exception {
    List<String> paths = new ArrayList<>();
    for (int i = 0; i < devices; i++) {
      paths.add("/api/v1/devices/station-" + i + "/sessions");
      paths.add("/api/v1/merge/ref-" + i + "-a");
    }
    Random random = new Random(42);
    for (int round = 0; round < rounds; round++) {
      Collections.shuffle(paths, random);
      for (TopologyProcess asked : instances) {
        for (String path : paths) {
          long started = System.nanoTime();
          HttpResponse<String> answer = get(http, asked, path);
          long micros = (System.nanoTime() - started) / 1_000;
          if (answer.statusCode() != 200) {
            throw new IllegalStateException(path + " answered " + answer.statusCode());
          }
          boolean local =
              asked
                  .advertisedServer()
                  .equals(answer.headers().firstValue(TopologyServer.SERVED_BY_HEADER).orElse(""));
          String kind = path.startsWith("/api/v1/merge/") ? "merge" : "sessions";
          record(figures, kind + (local ? " local" : " routed"), micros);
          long probeStarted = System.nanoTime();
          get(http, asked, "/health/live");
          record(figures, "baseline GET /health/live", (System.nanoTime() - probeStarted) / 1_000);
        }
      }
    }
  }

  private static void record(Map<String, Histogram> figures, String name, long micros) {
    figures.computeIfAbsent(name, n -> new Histogram(60_000_000L, 3)).recordValue(micros);
  }

  private static void print(Map<String, Histogram> figures) {
    System.out.printf(
        Locale.ROOT,
        "%n%-28s %10s %10s %10s %10s%n",
        "query",
        "requests",
        "p50 ms",
        "p99 ms",
        "max ms");
    figures.forEach(
        (name, h) ->
            System.out.printf(
                Locale.ROOT,
                "%-28s %,10d %10.2f %10.2f %10.2f%n",
                name,
                h.getTotalCount(),
                h.getValueAtPercentile(50) / 1000.0,
                h.getValueAtPercentile(99) / 1000.0,
                h.getMaxValue() / 1000.0));
  }

  private static void write(
      Path out,
      int devices,
      int rounds,
      Map<String, String> machine,
      Map<String, Histogram> figures)
      throws Exception {
    ObjectNode json = Json.mapper().createObjectNode();
    json.put("benchmark", "queries");
    json.put("at", Instant.now().toString());
    json.put("devices", devices);
    json.put("rounds", rounds);
    json.set("machine", Json.mapper().valueToTree(machine));
    json.put(
        "method",
        "two topology processes in one JVM, one in-process broker; one client, one request at a"
            + " time on a keep-alive HTTP/1.1 connection, every key from each instance per round;"
            + " local or routed from Turnstile-Served-By; baseline GET /health/live on the same"
            + " connection");
    ObjectNode results = json.putObject("latencyMillis");
    figures.forEach(
        (name, h) -> {
          ObjectNode r = results.putObject(name);
          r.put("requests", h.getTotalCount());
          r.put("p50", h.getValueAtPercentile(50) / 1000.0);
          r.put("p99", h.getValueAtPercentile(99) / 1000.0);
          r.put("max", h.getMaxValue() / 1000.0);
        });
    Files.createDirectories(out);
    Path file = out.resolve("queries.json");
    Files.write(file, Json.mapper().writerWithDefaultPrettyPrinter().writeValueAsBytes(json));
    System.out.printf("%nresults: %s%n", file);
  }

  private static TopologyConfig config(EmbeddedKafka kafka, Path home, String pod) {
    Map<String, String> values = new HashMap<>();
    values.put("kafka.bootstrap.servers", kafka.bootstrapServers());
    values.put("topology.state-dir", home.resolve("state-" + pod).toString());
    values.put("topology.num-standby-replicas", "0");
    values.put("topology.http.host", "127.0.0.1");
    values.put("topology.http.port", "0");
    values.put("topology.topics.check-interval-ms", "1000");
    return TopologyConfig.of(values);
  }

  private static int status(HttpClient http, TopologyProcess process, String path) {
    try {
      return get(http, process, path).statusCode();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    } catch (Exception e) {
      return -1;
    }
  }

  private static HttpResponse<String> get(HttpClient http, TopologyProcess process, String path)
      throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + process.healthPort() + path))
            .timeout(Duration.ofSeconds(10))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static void await(BooleanSupplier condition, Duration timeout) throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("not reached within " + timeout);
      }
      Thread.sleep(200);
    }
  }

  /** Per station: a session started and finished by reference (merged), and one left open. */
  private static void produce(String bootstrap, int devices) throws Exception {
    Map<String, Object> config = new HashMap<>();
    config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    config.put(ProducerConfig.LINGER_MS_CONFIG, 20);
    String topic = TopicCatalogue.DEVICE_EVENTS_RAW.baseName();
    try (KafkaProducer<String, byte[]> producer =
        new KafkaProducer<>(config, new StringSerializer(), new ByteArraySerializer())) {
      for (int i = 0; i < devices; i++) {
        String device = "station-" + i;
        String closed = "ref-" + i + "-a";
        send(producer, topic, event(device, "s-a", DeviceEventType.Started, closed, T0));
        send(
            producer,
            topic,
            event(device, "f-a", DeviceEventType.Finished, closed, T0.plusMinutes(30)));
        send(
            producer,
            topic,
            event(device, "s-b", DeviceEventType.Started, "ref-" + i + "-b", T0.plusHours(1)));
      }
      producer.flush();
    }
  }

  private static DeviceEvent event(
      String device, String id, DeviceEventType type, String ref, OffsetDateTime at) {
    return new DeviceEvent(device, id, type, at, ref, null, Instant.now());
  }

  private static void send(KafkaProducer<String, byte[]> producer, String topic, DeviceEvent event)
      throws Exception {
    ProducerRecord<String, byte[]> record =
        new ProducerRecord<>(topic, event.deviceId(), Json.mapper().writeValueAsBytes(event));
    record.headers().add(CloudEventHeaders.ID, event.eventId().getBytes(StandardCharsets.UTF_8));
    record
        .headers()
        .add(
            CloudEventHeaders.SOURCE,
            CloudEventHeaders.deviceSource(event.deviceId()).getBytes(StandardCharsets.UTF_8));
    producer.send(record);
  }
}
