package dev.turnstile.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.turnstile.schemas.Json;
import dev.turnstile.schemas.TopicCatalogue;
import dev.turnstile.topology.TopologyApplication;
import dev.turnstile.topology.config.TopologyConfig;
import io.vertx.core.buffer.Buffer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.HdrHistogram.Histogram;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.streams.StreamsConfig;

/**
 * End-to-end latency: from the bridge's {@code 202} for a device event to the session record it
 * causes ({@code Opened} for a {@code Started}, {@code Closed} for a {@code Finished}) being
 * visible to a {@code read_committed} consumer of {@code device-sessions.v1}. The bridge and the
 * topology each run in their own JVM as in production, against one broker process.
 *
 * <p>Each round first floods the pipeline for a while (closed loop) and measures its saturation:
 * the events accepted divided by the time until the last of their session records is visible (the
 * slower of bridge and topology sets it). It then offers half of that rate on a schedule and
 * measures the latency of every event accepted.
 */
final class EndToEndBench {

  private static final String SESSIONS = TopicCatalogue.DEVICE_SESSIONS.baseName();

  record Settings(
      int runs,
      Duration flood,
      Duration duration,
      int connections,
      int devices,
      int clientThreads,
      Map<String, String> topologyOverrides,
      Map<String, String> bridgeOverrides,
      Path workDir) {}

  /**
   * One round.
   *
   * @param saturationEventsPerSecond events accepted in the flood over the time until their last
   *     session record was visible
   * @param missing accepted events whose session record was not seen within a minute
   */
  record Run(
      int round,
      double saturationEventsPerSecond,
      double offeredEventsPerSecond,
      long accepted,
      long seen,
      long missing,
      double p50Millis,
      double p99Millis,
      double p999Millis,
      double maxMillis) {}

  record Report(Settings settings, long commitIntervalMillis, List<Run> runs) {}

  private final Settings settings;
  private final OffsetDateTime t0 = OffsetDateTime.now(ZoneOffset.UTC).minusDays(1);
  private final Map<String, Long> visibleAt = new ConcurrentHashMap<>();
  private final BenchCredentials credentials;

  EndToEndBench(Settings settings) {
    this.settings = settings;
    this.credentials = BenchCredentials.issue(settings.workDir());
  }

  Report run() throws IOException {
    Files.createDirectories(settings.workDir());
    Path logs = settings.workDir().resolve("logs");
    Map<String, String> topology = new HashMap<>(settings.topologyOverrides());
    List<Run> runs = new ArrayList<>();
    long commitInterval;
    try (Broker broker = Broker.start(settings.workDir().resolve("kafka"), logs);
        HttpLoad load = new HttpLoad(settings.clientThreads())) {
      broker.create(TopicCatalogue.ALL, List.of());
      topology.put("kafka.bootstrap.servers", broker.bootstrap());
      topology.put("topology.application-id", "bench-e2e");
      topology.put(
          "topology.state-dir", Files.createTempDirectory(settings.workDir(), "state").toString());
      commitInterval = commitInterval(topology);
      List<String> topologyArgs = new ArrayList<>(List.of(StreamsCandidate.TURNSTILE.label));
      topology.forEach((k, v) -> topologyArgs.add(k + "=" + v));
      List<String> bridgeArgs =
          new ArrayList<>(
              List.of(
                  "kafka.bootstrap.servers=" + broker.bootstrap(),
                  "bridge.http.host=127.0.0.1",
                  "bridge.http.port=0",
                  credentials.bridgeArgument()));
      settings.bridgeOverrides().forEach((k, v) -> bridgeArgs.add(k + "=" + v));
      try (ChildJvm streams =
              ChildJvm.start(
                  List.of("-Xmx1g"),
                  StreamsRunner.class.getName(),
                  topologyArgs,
                  logs.resolve("topology.log"));
          ChildJvm bridge =
              ChildJvm.start(
                  List.of("-Xmx1g"),
                  BridgeRunner.class.getName(),
                  bridgeArgs,
                  logs.resolve("bridge.log"));
          Watcher watcher = new Watcher(broker.bootstrap())) {
        streams.await("STARTED", Duration.ofMinutes(2));
        int port = Integer.parseInt(bridge.await("LISTENING ", Duration.ofMinutes(2)));
        // Unrecorded: both JVMs compile their paths and the topology's tasks settle here.
        HttpLoad.Result warmUp =
            load.closedLoop(
                port,
                settings.connections(),
                Duration.ZERO,
                settings.flood(),
                requests("w-", (id, at) -> {}));
        awaitVisible("w-", warmUp.answered2xx(), Duration.ofMinutes(3));
        for (int round = 1; round <= settings.runs(); round++) {
          runs.add(print(round(load, port, round)));
        }
      }
    }
    return new Report(settings, commitInterval, runs);
  }

  private Run round(HttpLoad load, int port, int round) {
    visibleAt.clear();
    long floodStart = System.nanoTime();
    HttpLoad.Result flood =
        load.closedLoop(
            port,
            settings.connections(),
            Duration.ZERO,
            settings.flood(),
            requests("f" + round + "-", (id, at) -> {}));
    long floodSeen = awaitVisible("f" + round + "-", flood.answered2xx(), Duration.ofMinutes(3));
    double saturation =
        flood.answered2xx() / ((latestVisible("f" + round + "-") - floodStart) / 1e9);
    if (floodSeen < flood.answered2xx()) {
      saturation = Double.NaN;
    }
    double rate = (Double.isNaN(saturation) ? flood.requestsPerSecond() : saturation) / 2;
    Map<String, Long> acceptedAt = new ConcurrentHashMap<>();
    String prefix = "m" + round + "-";
    load.fixedRate(
        port,
        settings.connections(),
        rate,
        Duration.ZERO,
        settings.duration(),
        requests(prefix, acceptedAt::put));
    long seen = awaitVisible(prefix, acceptedAt.size(), Duration.ofMinutes(1));
    Histogram latency = new Histogram(3);
    long missing = 0;
    for (Map.Entry<String, Long> accepted : acceptedAt.entrySet()) {
      Long visible = visibleAt.get(accepted.getKey());
      if (visible == null) {
        missing++;
      } else {
        latency.recordValue(Math.max(0, (visible - accepted.getValue()) / 1_000));
      }
    }
    return new Run(
        round,
        saturation,
        rate,
        acceptedAt.size(),
        seen,
        missing,
        latency.getValueAtPercentile(50) / 1e3,
        latency.getValueAtPercentile(99) / 1e3,
        latency.getValueAtPercentile(99.9) / 1e3,
        latency.getMaxValue() / 1e3);
  }

  /** Waits until {@code expected} session records with ids of {@code prefix}, or the timeout. */
  private long awaitVisible(String prefix, long expected, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    long seen = 0;
    while (System.nanoTime() < deadline) {
      seen = visibleAt.keySet().stream().filter(id -> id.startsWith(prefix)).count();
      if (seen >= expected) {
        return seen;
      }
      Broker.pause();
    }
    return seen;
  }

  private long latestVisible(String prefix) {
    return visibleAt.entrySet().stream()
        .filter(e -> e.getKey().startsWith(prefix))
        .mapToLong(Map.Entry::getValue)
        .max()
        .orElse(System.nanoTime());
  }

  /** Where an accepted event's id and answer time go. */
  private interface Accepted {
    void at(String eventId, long nanoTime);
  }

  /**
   * Sessions one after another per station: in each block of {@code 2 × devices} requests every
   * station sends its {@code Started}, then every station its {@code Finished}, with a {@code
   * sessionRef}; so a session's {@code Finished} follows its {@code Started} by {@code devices}
   * requests.
   */
  private HttpLoad.Requests requests(String prefix, Accepted accepted) {
    int devices = settings.devices();
    return sequence -> {
      long session = sequence / (2L * devices);
      int inBlock = (int) (sequence % (2L * devices));
      boolean started = inBlock < devices;
      String device = "station-" + (inBlock % devices);
      String ref = prefix + session + "-" + (inBlock % devices);
      String eventId = ref + (started ? "-s" : "-f");
      String body =
          "{\"eventId\":\""
              + eventId
              + "\",\"type\":\""
              + (started ? "Started" : "Finished")
              + "\",\"occurredAt\":\""
              + t0.plusMinutes(session * 10 + (started ? 0 : 5))
              + "\",\"sessionRef\":\""
              + ref
              + "\"}";
      return new HttpLoad.Request(
          "/api/v1/devices/" + device + "/events",
          "application/json",
          Buffer.buffer(body),
          credentials.authorization(),
          at -> accepted.at(eventId, at));
    };
  }

  /** The topology's commit interval as Kafka Streams will use it (100 ms under EOS unless set). */
  private static long commitInterval(Map<String, String> values) {
    TopologyConfig config = TopologyConfig.of(values);
    return new StreamsConfig(TopologyApplication.streamsProperties(config))
        .getLong(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG);
  }

  private static Run print(Run run) {
    System.out.printf(
        java.util.Locale.ROOT,
        "round %d  saturation %,8.0f events/s  offered %,8.0f/s  accepted %,d  seen %,d  missing"
            + " %d  p50 %6.1f ms  p99 %6.1f ms  p99.9 %6.1f ms  max %6.1f ms%n",
        run.round(),
        run.saturationEventsPerSecond(),
        run.offeredEventsPerSecond(),
        run.accepted(),
        run.seen(),
        run.missing(),
        run.p50Millis(),
        run.p99Millis(),
        run.p999Millis(),
        run.maxMillis());
    return run;
  }

  /**
   * Reads {@code device-sessions.v1} with {@code read_committed} from its end as it is now, and
   * notes when each triggering event's record became visible (by its {@code startEventId} or {@code
   * finishEventId}).
   */
  private final class Watcher implements AutoCloseable {
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final Thread thread;

    Watcher(String bootstrap) {
      KafkaConsumer<String, byte[]> consumer =
          new KafkaConsumer<>(
              Map.of(
                  ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                  bootstrap,
                  ConsumerConfig.ISOLATION_LEVEL_CONFIG,
                  "read_committed",
                  ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG,
                  10,
                  ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG,
                  false),
              new StringDeserializer(),
              new ByteArrayDeserializer());
      List<TopicPartition> partitions =
          consumer.partitionsFor(SESSIONS, Duration.ofSeconds(30)).stream()
              .map(p -> new TopicPartition(SESSIONS, p.partition()))
              .toList();
      consumer.assign(partitions);
      consumer.seekToEnd(partitions);
      partitions.forEach(consumer::position);
      thread =
          new Thread(
              () -> {
                try (consumer) {
                  while (running.get()) {
                    for (ConsumerRecord<String, byte[]> record :
                        consumer.poll(Duration.ofMillis(20))) {
                      long now = System.nanoTime();
                      String id = triggeringEventId(record.value());
                      if (id != null) {
                        visibleAt.putIfAbsent(id, now);
                      }
                    }
                  }
                }
              },
              "e2e-watcher");
      thread.setDaemon(true);
      thread.start();
    }

    private static String triggeringEventId(byte[] value) {
      try {
        JsonNode event = Json.mapper().readTree(value);
        return switch (event.path("type").asText()) {
          case "Opened" -> event.path("startEventId").asText(null);
          case "Closed" -> event.path("finishEventId").asText(null);
          default -> null;
        };
      } catch (IOException e) {
        return null;
      }
    }

    @Override
    public void close() {
      running.set(false);
      try {
        thread.join(10_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
