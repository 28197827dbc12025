package dev.turnstile.runtime.topics;

import java.util.Map;

/**
 * A topic as the cluster describes it.
 *
 * @param name full name
 * @param topicId the id Kafka gave it at creation; a deleted and recreated topic has a new one
 * @param partitions partition count
 * @param replicas replication factor (of partition 0)
 * @param configs the topic's effective configs, defaults included
 */
public record ObservedTopic(
    String name, String topicId, int partitions, int replicas, Map<String, String> configs) {

  public ObservedTopic {
    configs = Map.copyOf(configs);
  }
}
