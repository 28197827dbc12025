package dev.turnstile.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.turnstile.schemas.RejectionReason;
import dev.turnstile.schemas.TopicCatalogue;
import dev.turnstile.testkit.EmbeddedKafka;
import dev.turnstile.topology.adapter.http.TopologyHttpServer;
import dev.turnstile.topology.adapter.streams.Names;
import dev.turnstile.topology.config.ConfigValues;
import dev.turnstile.topology.config.TopologyConfig;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a dashboard reads from the topology's {@code GET /metrics} right after start-up, before any
 * traffic: the families must already be there, with their series, so that a panel or an alert has
 * something to show (a counter at 0, not a missing series).
 */
class TopologyMetricsIT {

  @TempDir static Path home;
  static EmbeddedKafka kafka;
  static TopologyApplication topology;
  static TopologyHttpServer health;

  @BeforeAll
  static void start() throws InterruptedException {
    kafka = EmbeddedKafka.start(home.resolve("kafka"));
    kafka.createTopics(
        TopicCatalogue.ALL.stream()
            .map(t -> new NewTopic(t.baseName(), t.partitions(), (short) 1))
            .toList());
    TopologyConfig config =
        TopologyConfig.from(
            ConfigValues.of(
                Map.of(
                    "kafka.bootstrap.servers", kafka.bootstrapServers(),
                    "topology.state-dir", home.resolve("streams").toString(),
                    "topology.num-standby-replicas", "0")));
    topology = TopologyApplication.start(config);
    assertThat(topology.awaitRunning(Duration.ofSeconds(60))).isTrue();
    health =
        TopologyHttpServer.start(
            "127.0.0.1",
            0,
            new TopologyHttpServer.Probes(
                topology::live, topology::ready, () -> topology.state().name(), topology::scrape));
  }

  @AfterAll
  static void stop() {
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
    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () ->
                assertThat(
                        labelValues(
                            series(scrape(), "kafka_stream_turnstile_rejections_rejected_total"),
                            "turnstile_rejections_id"))
                    .containsAll(reasons));
    assertThat(series(scrape(), "kafka_stream_turnstile_rejections_rejected_total"))
        .allSatisfy(line -> assertThat(line).endsWith(" 0.0"));
  }

  @Test
  void theDedupWindowStoresRocksDbMetricsReachTheEndpoint() {
    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () ->
                assertThat(
                        labelValues(
                            series(scrape(), "kafka_stream_state_estimate_num_keys"),
                            "rocksdb_state_id"))
                    .contains(
                        Names.DEVICE_STATE_STORE,
                        Names.DEVICE_EVENT_INDEX,
                        Names.SERVICEBUS_MESSAGE_DEDUP_STORE,
                        Names.MERGE_STORE));
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
    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () -> {
              String scrape = scrape();
              assertThat(families).allSatisfy(f -> assertThat(series(scrape, f)).isNotEmpty());
            });
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
