package dev.turnstile.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.turnstile.schemas.RejectionReason;
import dev.turnstile.schemas.TopicCatalogue;
import dev.turnstile.testkit.EmbeddedKafka;
import dev.turnstile.topology.adapter.http.TopologyHttpServer;
import dev.turnstile.topology.adapter.streams.Names;
import dev.turnstile.topology.config.TopologyConfig;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
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
        TopologyConfig.of(
            Map.of(
                "kafka.bootstrap.servers", kafka.bootstrapServers(),
                "topology.state-dir", home.resolve("streams").toString(),
                "topology.num-standby-replicas", "0"));
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
            Names.DEVICE_STATE_STORE,
            Names.DEVICE_EVENT_INDEX,
            Names.SERVICEBUS_MESSAGE_DEDUP_STORE,
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

  /**
   * Issue 25: Kafka's consumer reports lag per topic under the topic's name and its {@code _} form
   * beside client-level series, and the dashboard and the alert summed them all, counting the lag
   * two or three times. Every lag selector of the dashboard's lag panel and of the lag alert,
   * applied to this scrape (with the labels Prometheus adds), must pick exactly one series per
   * partition of every topic the topology reads, and nothing else; their sum is then the lag.
   */
  @Test
  void theLagExpressionsCountEachPartitionOfEveryTopicTheTopologyReadsOnce() throws Exception {
    Path repository = Path.of("..").toAbsolutePath().normalize();
    JsonNode dashboard =
        new ObjectMapper()
            .readTree(
                repository.resolve("k8s/components/monitoring/dashboards/turnstile.json").toFile());
    List<String> expressions = new ArrayList<>();
    dashboard.findValues("expr").forEach(expr -> expressions.add(expr.asText()));
    expressions.add(
        Files.readString(repository.resolve("k8s/components/monitoring/prometheusrule.yaml")));
    Map<String, String> variables = new HashMap<>();
    for (JsonNode variable : dashboard.path("templating").path("list")) {
      variables.put(
          variable.path("name").asText(), variable.path("current").path("value").asText());
    }
    Set<String> expected = new TreeSet<>();
    try (Admin admin = kafka.admin()) {
      Set<String> sources = TopologyApplication.sourceTopics(config);
      admin
          .describeTopics(sources)
          .allTopicNames()
          .get()
          .forEach(
              (topic, description) ->
                  description.partitions().forEach(p -> expected.add(topic + "/" + p.partition())));
    }
    assertThat(expected).isNotEmpty();

    // A partition's lag series appears with its first fetch: wait for every partition's.
    String joined = String.join("\n", expressions);
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              String scrape = scrape();
              Matcher selector = LAG_SELECTOR.matcher(joined);
              while (selector.find()) {
                assertThat(selector.group(1)).isEqualTo("kafka_consumer_fetch_manager_records_lag");
                List<String> picked = new ArrayList<>();
                for (Map<String, String> labels : samples(scrape, selector.group(1))) {
                  if (matches(labels, selector.group(2), variables)) {
                    picked.add(labels.get("topic") + "/" + labels.get("partition"));
                  }
                }
                assertThat(picked).as(selector.group()).doesNotHaveDuplicates();
                assertThat(new TreeSet<>(picked)).as(selector.group()).isEqualTo(expected);
              }
            });
    Matcher selector = LAG_SELECTOR.matcher(joined);
    int selectors = 0;
    while (selector.find()) {
      selectors++;
    }
    assertThat(selectors).as("the lag panel's selector and the alert's two").isEqualTo(3);
  }

  private static final Pattern LAG_SELECTOR =
      Pattern.compile("(kafka_consumer_fetch_manager_records_lag\\w*)\\{([^}]*)}");

  /**
   * The label sets of {@code family}'s samples in {@code scrape}, with the labels Prometheus adds
   * when the PodMonitor scrapes a topology pod.
   */
  private static List<Map<String, String>> samples(String scrape, String family) {
    Pattern label = Pattern.compile("(\\w+)=\"((?:[^\"\\\\]|\\\\.)*)\"");
    List<Map<String, String>> samples = new ArrayList<>();
    for (String line : series(scrape, family)) {
      Map<String, String> labels = new HashMap<>();
      labels.put("job", "turnstile/turnstile-topology");
      labels.put("namespace", "turnstile");
      labels.put("pod", "turnstile-topology-0");
      int open = line.indexOf('{');
      if (open >= 0) {
        Matcher pair = label.matcher(line.substring(open, line.lastIndexOf('}')));
        while (pair.find()) {
          labels.put(pair.group(1), pair.group(2));
        }
      }
      samples.add(labels);
    }
    return samples;
  }

  /** PromQL label matchers ({@code =}, {@code !=}, {@code =~}, {@code !~}; regexes anchored). */
  private static boolean matches(
      Map<String, String> labels, String matchers, Map<String, String> variables) {
    Matcher matcher = Pattern.compile("(\\w+)\\s*(=~|!~|!=|=)\\s*\"([^\"]*)\"").matcher(matchers);
    while (matcher.find()) {
      String value = matcher.group(3);
      for (Map.Entry<String, String> variable : variables.entrySet()) {
        value = value.replace("$" + variable.getKey(), variable.getValue());
      }
      String actual = labels.getOrDefault(matcher.group(1), "");
      boolean ok =
          switch (matcher.group(2)) {
            case "=" -> actual.equals(value);
            case "!=" -> !actual.equals(value);
            case "=~" -> actual.matches(value);
            default -> !actual.matches(value);
          };
      if (!ok) {
        return false;
      }
    }
    return true;
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
