package dev.turnstile.local;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.kafka.streams.KafkaStreams;
import org.junit.jupiter.api.Test;

/**
 * The dashboard and the alerts read {@code kafka_stream_client_state}, the ordinal of {@link
 * KafkaStreams.State} (TopologyMetricsIT checks that against a running client): the dashboard names
 * every state as Kafka Streams does, and the alert compares with {@code RUNNING}'s ordinal.
 */
class MonitoringManifestsTest {

  static final Path REPOSITORY = Path.of("..").toAbsolutePath().normalize();
  static final Path MONITORING = REPOSITORY.resolve("k8s/components/monitoring");

  @Test
  void theDashboardShowsEveryKafkaStreamsStateByItsName() throws Exception {
    JsonNode dashboard =
        new ObjectMapper().readTree(MONITORING.resolve("dashboards/turnstile.json").toFile());
    JsonNode panel = panelReading(dashboard, "kafka_stream_client_state");
    Map<Integer, String> shown = new TreeMap<>();
    panel
        .path("fieldConfig")
        .path("defaults")
        .path("mappings")
        .forEach(
            mapping ->
                mapping
                    .path("options")
                    .fields()
                    .forEachRemaining(
                        option ->
                            shown.put(
                                Integer.valueOf(option.getKey()),
                                option.getValue().path("text").asText())));

    Map<Integer, String> states =
        Arrays.stream(KafkaStreams.State.values())
            .collect(Collectors.toMap(Enum::ordinal, Enum::name, (a, b) -> a, TreeMap::new));
    assertThat(shown).isEqualTo(states);
    assertThat(panel.path("type").asText()).isEqualTo("state-timeline");
  }

  @Test
  void theNotRunningAlertComparesWithRunningsOrdinal() throws Exception {
    String rules = Files.readString(MONITORING.resolve("prometheusrule.yaml"));
    Matcher notRunning =
        Pattern.compile("kafka_stream_client_state\\{[^}]*}\\)\\s*!=\\s*(\\d+)").matcher(rules);

    assertThat(notRunning.find()).isTrue();
    assertThat(Integer.parseInt(notRunning.group(1)))
        .isEqualTo(KafkaStreams.State.RUNNING.ordinal());
  }

  private static JsonNode panelReading(JsonNode dashboard, String metric) {
    for (JsonNode panel : dashboard.path("panels")) {
      for (JsonNode target : panel.path("targets")) {
        if (target.path("expr").asText().contains(metric)) {
          return panel;
        }
      }
    }
    throw new AssertionError("no panel reads " + metric);
  }
}
