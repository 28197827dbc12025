package dev.turnstile.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.turnstile.schemas.RejectionReason;
import dev.turnstile.schemas.TopicCatalogue;
import dev.turnstile.testkit.EmbeddedKafka;
import dev.turnstile.topology.adapter.http.TopologyHttpServer;
import dev.turnstile.topology.adapter.streams.Names;
import dev.turnstile.topology.config.ConfigValues;
import dev.turnstile.topology.config.TopologyConfig;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.streams.KafkaStreams;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * What a dashboard reads from the topology's {@code GET /metrics} in the first scrape after it
 * turned ready, before any traffic: the families must already be there, with their series, so that
 * a panel or an alert has something to show (a counter at 0, not a missing series), and every store
 * metric Kafka Streams has is exported once.
 */
class TopologyMetricsIT {

  @TempDir static Path home;
  static EmbeddedKafka kafka;
  static TopologyApplication topology;
  static TopologyHttpServer health;
  static TopologyConfig config;

  /** The first scrape once {@code /health/ready} answered 200. */
  static String atReadiness;

  /** What Micrometer's registry logged while the metrics were bound. */
  static final ListAppender<ILoggingEvent> registryLog = new ListAppender<>();

  @BeforeAll
  static void start() throws Exception {
    registryLog.start();
    ((Logger) LoggerFactory.getLogger(MeterRegistry.class)).addAppender(registryLog);
    kafka = EmbeddedKafka.start(home.resolve("kafka"));
    kafka.createTopics(
        TopicCatalogue.ALL.stream()
            .map(t -> new NewTopic(t.baseName(), t.partitions(), (short) 1))
            .toList());
    config =
        TopologyConfig.from(
            ConfigValues.of(
                Map.of(
                    "kafka.bootstrap.servers", kafka.bootstrapServers(),
                    "topology.state-dir", home.resolve("streams").toString(),
                    "topology.num-standby-replicas", "0")));
    topology = TopologyApplication.start(config);
    health =
        TopologyHttpServer.start(
            "127.0.0.1",
            0,
            new TopologyHttpServer.Probes(
                topology::live, topology::ready, () -> topology.state().name(), topology::scrape));
    await()
        .atMost(Duration.ofSeconds(90))
        .pollInterval(Duration.ofMillis(20))
        .until(() -> status("/health/ready") == 200);
    atReadiness = scrape();
  }

  @AfterAll
  static void stop() {
    ((Logger) LoggerFactory.getLogger(MeterRegistry.class)).detachAppender(registryLog);
    if (health != null) {
      health.close();
    }
    if (topology != null) {
      topology.close();
    }
    kafka.close();
  }

  @Test
  void everyReasonCodeHasARejectionSeriesAtZero() throws Exception {
    Set<String> reasons =
        Arrays.stream(RejectionReason.values()).map(Enum::name).collect(Collectors.toSet());
    List<String> rejections =
        series(atReadiness, "kafka_stream_turnstile_rejections_rejected_total");
    assertThat(labelValues(rejections, "turnstile_rejections_id")).containsAll(reasons);
    assertThat(rejections).allSatisfy(line -> assertThat(line).endsWith(" 0.0"));
  }

  @Test
  void theDedupWindowStoresRocksDbMetricsReachTheEndpoint() {
    assertThat(
            labelValues(
                series(atReadiness, "kafka_stream_state_estimate_num_keys"), "rocksdb_state_id"))
        .contains(
            Names.DEVICE_EVENT_DEDUP_STORE,
            Names.SERVICEBUS_MESSAGE_DEDUP_STORE,
            Names.DEVICE_SESSION_STORE,
            Names.MERGE_STORE);
  }

  /**
   * Every numeric store metric of Kafka Streams (key-value and window stores alike) is one series
   * of the scrape, under its store's {@code rocksdb_state_id}; and binding them again as tasks were
   * assigned re-registered nothing ("already registered ... will be ignored").
   */
  @Test
  void everyStoreMetricIsExportedOnceAndNoneIsRegisteredTwice() throws Exception {
    String scrape = scrape();
    List<String> missing = new ArrayList<>();
    int stores = 0;
    for (Map.Entry<MetricName, ? extends Metric> metric : topology.metrics().entrySet()) {
      MetricName name = metric.getKey();
      if (!name.group().equals("stream-state-metrics")
          || !(metric.getValue().metricValue() instanceof Number)) {
        continue;
      }
      stores++;
      String family = "kafka_stream_state_" + name.name().replace('-', '_');
      String store = "rocksdb_state_id=\"" + name.tags().get("rocksdb-state-id") + "\"";
      String task = "task_id=\"" + name.tags().get("task-id") + "\"";
      long found =
          scrape
              .lines()
              .filter(l -> l.startsWith(family + "{") || l.startsWith(family + "_total{"))
              .filter(l -> l.contains(store) && l.contains(task))
              .count();
      if (found != 1) {
        missing.add(name + " found " + found + " times");
      }
    }
    assertThat(stores).isPositive();
    assertThat(missing).isEmpty();
    assertThat(registryLog.list)
        .extracting(ILoggingEvent::getFormattedMessage)
        .noneMatch(message -> message.contains("already registered"));
  }

  /** {@code kafka_stream_client_state} is the ordinal of {@code KafkaStreams.State}. */
  @Test
  void theClientStateIsTheOrdinalOfKafkaStreamsState() {
    assertThat(series(atReadiness, "kafka_stream_client_state"))
        .singleElement()
        .satisfies(
            line ->
                assertThat(line)
                    .endsWith(" " + (double) KafkaStreams.State.RUNNING.ordinal())
                    .contains("application_id=\"turnstile-topology\""));
  }

  @Test
  void theFamiliesADashboardNeedsArePresent() {
    List<String> families =
        List.of(
            "kafka_stream_alive_stream_threads",
            "kafka_stream_thread_process_total",
            "kafka_stream_thread_commit_latency_avg",
            "kafka_stream_task_dropped_records_total",
            "kafka_stream_turnstile_dedup_duplicates_total",
            "kafka_stream_turnstile_rejections_rejected_total",
            "kafka_stream_state_block_cache_usage",
            "kafka_consumer_fetch_manager_records_lag_max");
    assertThat(families).allSatisfy(f -> assertThat(series(atReadiness, f)).isNotEmpty());
  }

  private static int status(String path) throws Exception {
    return HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + health.port() + path)).build(),
            HttpResponse.BodyHandlers.discarding())
        .statusCode();
  }

  private static String scrape() throws Exception {
    HttpResponse<String> response =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + health.port() + "/metrics"))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).isEqualTo(200);
    return response.body();
  }

  /** The sample lines of one family, e.g. {@code name{a="b",...} 0.0}. */
  private static List<String> series(String scrape, String family) {
    return scrape
        .lines()
        .filter(l -> l.startsWith(family + "{") || l.startsWith(family + " "))
        .toList();
  }

  private static Set<String> labelValues(List<String> lines, String label) {
    Pattern value = Pattern.compile("[{,]" + Pattern.quote(label) + "=\"([^\"]*)\"");
    return lines.stream()
        .map(value::matcher)
        .filter(Matcher::find)
        .map(m -> m.group(1))
        .collect(Collectors.toSet());
  }
}
