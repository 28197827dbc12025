package dev.turnstile.runtime.topics;

import dev.turnstile.schemas.Generation;
import dev.turnstile.schemas.Topic;
import dev.turnstile.schemas.TopicCatalogue;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.TopicConfig;

/**
 * A topic as a deployment wants it: the catalogue's layout under the deployment's prefix and
 * replication factor.
 *
 * @param name full name, prefix applied
 * @param partitions partition count; 0 when only the topic's existence is required (a topic named
 *     in configuration that the catalogue does not declare)
 * @param replicas replication factor
 * @param configs topic configs the catalogue declares ({@code retention.ms}, {@code
 *     cleanup.policy}, and {@code min.insync.replicas} where the replication factor allows one)
 */
public record TopicSpec(String name, int partitions, short replicas, Map<String, String> configs) {

  public TopicSpec {
    configs = Map.copyOf(configs);
  }

  /** The spec of a catalogued topic. */
  public static TopicSpec of(Topic topic, String prefix, short replicas) {
    Map<String, String> configs = new LinkedHashMap<>();
    configs.put(TopicConfig.RETENTION_MS_CONFIG, Long.toString(topic.retentionMs()));
    configs.put(TopicConfig.CLEANUP_POLICY_CONFIG, topic.cleanupPolicy());
    minInSyncReplicas(replicas)
        .ifPresent(n -> configs.put(TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG, Integer.toString(n)));
    return new TopicSpec(topic.name(prefix), topic.partitions(), replicas, configs);
  }

  /** {@code min.insync.replicas} for a replication factor: {@link Topic#minInSyncReplicas}. */
  public static java.util.OptionalInt minInSyncReplicas(int replicas) {
    return Topic.minInSyncReplicas(replicas);
  }

  /** Every catalogued topic under the prefix, with the given replication factor. */
  public static List<TopicSpec> catalogue(String prefix, short replicas) {
    return catalogue(prefix, Generation.DEFAULT, replicas);
  }

  /**
   * Every topic a generation uses: the shared raw topics and its own outputs ({@link
   * Generation#topicName}), under the prefix, with the given replication factor.
   */
  public static List<TopicSpec> catalogue(String prefix, Generation generation, short replicas) {
    return TopicCatalogue.ALL.stream()
        .map(t -> named(t, generation.topicName(t, prefix), replicas))
        .toList();
  }

  /** The spec of a catalogued topic under its full name. */
  private static TopicSpec named(Topic topic, String name, short replicas) {
    TopicSpec spec = of(topic, "", replicas);
    return new TopicSpec(name, spec.partitions(), spec.replicas(), spec.configs());
  }

  /** The topic to create; {@link #existing} topics cannot be created. */
  public org.apache.kafka.clients.admin.NewTopic toNewTopic() {
    if (partitions == 0) {
      throw new IllegalStateException(name + " has no declared layout");
    }
    return new org.apache.kafka.clients.admin.NewTopic(name, partitions, replicas).configs(configs);
  }

  /** A topic that must exist, whatever its layout. */
  public static TopicSpec existing(String name) {
    return new TopicSpec(name, 0, (short) 0, Map.of());
  }
}
