package dev.turnstile.topology;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.junit.jupiter.api.Test;

class ExportedKafkaStreamsTest {

  @Test
  void everyKindOfStoreIsNamedByOneTag() {
    Map<MetricName, Metric> exported =
        ExportedKafkaStreams.exported(
            metrics(
                name("put-rate", "stream-state-metrics", "rocksdb-state-id", "device-state-store"),
                name("put-rate", "stream-state-metrics", "rocksdb-window-state-id", "merge-store"),
                name("put-rate", "stream-state-metrics", "rocksdb-session-state-id", "s-store")));

    assertThat(exported.keySet())
        .extracting(MetricName::tags)
        .allSatisfy(tags -> assertThat(tags).containsOnlyKeys("task-id", "rocksdb-state-id"))
        .extracting(tags -> tags.get("rocksdb-state-id"))
        .containsExactly("device-state-store", "merge-store", "s-store");
  }

  @Test
  void aTopicIsReportedOnceUnderItsOwnName() {
    String group = "consumer-fetch-manager-metrics";
    Map<MetricName, Metric> exported =
        ExportedKafkaStreams.exported(
            metrics(
                name("records-lag", group, "topic", "device-events.raw.v1"),
                name("records-lag", group, "topic", "device-events_raw_v1"),
                // A topic whose own name has underscores and no dotted twin stays.
                name("records-lag", group, "topic", "legacy_orders")));

    assertThat(exported.keySet())
        .extracting(n -> n.tags().get("topic"))
        .containsExactly("device-events.raw.v1", "legacy_orders");
  }

  private static MetricName name(String name, String group, String tag, String value) {
    return new MetricName(name, group, "", Map.of("task-id", "0_1", tag, value));
  }

  private static Map<MetricName, Metric> metrics(MetricName... names) {
    Map<MetricName, Metric> metrics = new LinkedHashMap<>();
    for (MetricName name : List.of(names)) {
      metrics.put(
          name,
          new Metric() {
            @Override
            public MetricName metricName() {
              return name;
            }

            @Override
            public Object metricValue() {
              return 0.0;
            }
          });
    }
    return metrics;
  }
}
