package dev.turnstile.topology;

import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.Topology;

/**
 * Kafka Streams whose {@link #metrics()} are the ones Turnstile exports on {@code /metrics}, each
 * under one name and one set of tag keys; everything else is Kafka Streams.
 *
 * <ul>
 *   <li>Every store is tagged {@value #STORE_TAG}. Kafka Streams tags a key-value store's RocksDB
 *       and store metrics {@code rocksdb-state-id} and a window (session) store's {@code
 *       rocksdb-window-state-id} ({@code rocksdb-session-state-id}) under the same metric names,
 *       and Prometheus takes one set of label names per metric. Renaming here, not with a
 *       Micrometer {@code MeterFilter}: Micrometer's Kafka binder compares what it registered by
 *       the unfiltered tags, so a renamed meter was registered again at every refresh ("already
 *       registered ... will be ignored") and never removed when its store closed
 *       (micrometer-metrics/micrometer#7541).
 *   <li>A consumer's per-topic metrics appear once, under the topic's name. Kafka's consumer also
 *       reports a topic whose name holds a dot under a second, deprecated name with {@code _} for
 *       each dot ({@code device-events_raw_v1} beside {@code device-events.raw.v1}); a sum over the
 *       topics counted its lag twice.
 * </ul>
 *
 * <p>Kafka Streams names its client's logger after {@code getClass()}, so its lines come from this
 * class's name: the logging configurations set it beside {@code org.apache.kafka}.
 */
final class ExportedKafkaStreams extends KafkaStreams {

  /** The one tag key that names a store in every store metric. */
  static final String STORE_TAG = "rocksdb-state-id";

  private static final Set<String> OTHER_STORE_TAGS =
      Set.of("rocksdb-window-state-id", "rocksdb-session-state-id");

  private static final String TOPIC_TAG = "topic";

  ExportedKafkaStreams(Topology topology, java.util.Properties properties) {
    super(topology, properties);
  }

  @Override
  public Map<MetricName, ? extends Metric> metrics() {
    return exported(super.metrics());
  }

  /** {@code metrics} as exported: one store tag key, no deprecated topic names. */
  static Map<MetricName, Metric> exported(Map<MetricName, ? extends Metric> metrics) {
    Set<String> deprecatedTopics = deprecatedTopicNames(metrics.keySet());
    Map<MetricName, Metric> exported = new LinkedHashMap<>(metrics.size());
    metrics.forEach(
        (name, metric) -> {
          if (!deprecatedTopics.contains(name.tags().get(TOPIC_TAG))) {
            exported.put(withOneStoreTag(name), metric);
          }
        });
    return exported;
  }

  private static MetricName withOneStoreTag(MetricName name) {
    if (OTHER_STORE_TAGS.stream().noneMatch(name.tags()::containsKey)) {
      return name;
    }
    Map<String, String> tags = new HashMap<>();
    name.tags()
        .forEach((key, value) -> tags.put(OTHER_STORE_TAGS.contains(key) ? STORE_TAG : key, value));
    return new MetricName(name.name(), name.group(), name.description(), tags);
  }

  /** Topic names that are another reported topic's name with its dots as underscores. */
  private static Set<String> deprecatedTopicNames(Set<MetricName> names) {
    Set<String> topics = new HashSet<>();
    for (MetricName name : names) {
      String topic = name.tags().get(TOPIC_TAG);
      if (topic != null) {
        topics.add(topic);
      }
    }
    Set<String> deprecated = new HashSet<>();
    for (String topic : topics) {
      String underscored = topic.replace('.', '_');
      if (!underscored.equals(topic) && topics.contains(underscored)) {
        deprecated.add(underscored);
      }
    }
    return deprecated;
  }
}
