package dev.turnstile.runtime.topics;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.DescribeConfigsOptions;
import org.apache.kafka.clients.admin.DescribeTopicsOptions;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/**
 * Reads topics from a cluster with the admin client. Describing a topic never creates it, unlike a
 * producer's or consumer's metadata request on a broker that allows auto-creation.
 */
public final class ClusterTopics {

  private ClusterTopics() {}

  /**
   * Describes the named topics and their configs; a topic that does not exist is absent from the
   * answer.
   *
   * @throws TimeoutException when the cluster does not answer within {@code timeout}
   * @throws ExecutionException on any other failure (authorization, for example)
   */
  public static Map<String, ObservedTopic> describe(
      Admin admin, Collection<String> names, Duration timeout)
      throws InterruptedException, ExecutionException, TimeoutException {
    int timeoutMs = (int) timeout.toMillis();
    Map<String, KafkaFuture<TopicDescription>> futures =
        admin
            .describeTopics(names, new DescribeTopicsOptions().timeoutMs(timeoutMs))
            .topicNameValues();
    Map<String, TopicDescription> found = new LinkedHashMap<>();
    for (var entry : futures.entrySet()) {
      try {
        found.put(entry.getKey(), entry.getValue().get(timeoutMs, TimeUnit.MILLISECONDS));
      } catch (ExecutionException e) {
        if (!(e.getCause() instanceof UnknownTopicOrPartitionException)) {
          throw e;
        }
      }
    }
    Map<String, Map<String, String>> configs = configs(admin, found.keySet(), timeoutMs);
    Map<String, ObservedTopic> observed = new LinkedHashMap<>();
    found.forEach(
        (name, description) ->
            observed.put(
                name,
                new ObservedTopic(
                    name,
                    description.topicId().toString(),
                    description.partitions().size(),
                    description.partitions().isEmpty()
                        ? 0
                        : description.partitions().get(0).replicas().size(),
                    configs.getOrDefault(name, Map.of()))));
    return observed;
  }

  private static Map<String, Map<String, String>> configs(
      Admin admin, Collection<String> names, int timeoutMs)
      throws InterruptedException, ExecutionException, TimeoutException {
    if (names.isEmpty()) {
      return Map.of();
    }
    List<ConfigResource> resources = new ArrayList<>();
    names.forEach(name -> resources.add(new ConfigResource(ConfigResource.Type.TOPIC, name)));
    Map<ConfigResource, Config> described =
        admin
            .describeConfigs(resources, new DescribeConfigsOptions().timeoutMs(timeoutMs))
            .all()
            .get(timeoutMs, TimeUnit.MILLISECONDS);
    Map<String, Map<String, String>> result = new HashMap<>();
    described.forEach(
        (resource, config) -> {
          Map<String, String> values = new HashMap<>();
          config.entries().forEach(e -> values.put(e.name(), e.value()));
          result.put(resource.name(), values);
        });
    return result;
  }

  /**
   * How an observed topic differs from its spec. {@code strict} also compares the replication
   * factor and every declared config; otherwise only what decides where records go and whether they
   * are kept: the partition count and {@code cleanup.policy}.
   */
  public static List<TopicDrift> drift(TopicSpec spec, ObservedTopic observed, boolean strict) {
    List<TopicDrift> drift = new ArrayList<>();
    if (observed == null) {
      drift.add(TopicDrift.missing(spec.name()));
      return drift;
    }
    if (spec.partitions() > 0 && spec.partitions() != observed.partitions()) {
      drift.add(
          new TopicDrift(
              spec.name(),
              "partitions",
              Integer.toString(spec.partitions()),
              Integer.toString(observed.partitions())));
    }
    if (strict && spec.replicas() > 0 && spec.replicas() != observed.replicas()) {
      drift.add(
          new TopicDrift(
              spec.name(),
              "replicas",
              Integer.toString(spec.replicas()),
              Integer.toString(observed.replicas())));
    }
    spec.configs()
        .forEach(
            (key, expected) -> {
              if (!strict && !key.equals("cleanup.policy")) {
                return;
              }
              String actual = observed.configs().get(key);
              if (!expected.equals(actual)) {
                drift.add(
                    new TopicDrift(
                        spec.name(), key, expected, actual == null ? "missing" : actual));
              }
            });
    return drift;
  }
}
