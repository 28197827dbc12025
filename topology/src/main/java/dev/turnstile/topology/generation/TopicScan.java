package dev.turnstile.topology.generation;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Reads a topic once, from its earliest retained offset to the end it had when the scan began,
 * under {@code read_committed}: what a consumer of the topic would see, without a consumer group
 * (partitions are assigned, nothing is committed) and without creating the topic.
 */
final class TopicScan {

  private TopicScan() {}

  /**
   * Hands every committed record of {@code topic} to {@code each}, partition by partition in offset
   * order within a partition.
   *
   * @param client Kafka client settings ({@code bootstrap.servers}, security)
   * @throws TimeoutException when the end is not reached within {@code timeout}
   * @throws IllegalArgumentException when the topic does not exist
   */
  static void scan(
      Map<String, Object> client,
      String topic,
      Duration timeout,
      Consumer<ConsumerRecord<String, byte[]>> each)
      throws TimeoutException {
    Map<String, Object> properties = new HashMap<>(client);
    properties.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    properties.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false);
    properties.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    properties.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    properties.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 2_000);
    properties.remove(ConsumerConfig.GROUP_ID_CONFIG);
    try (KafkaConsumer<String, byte[]> consumer =
        new KafkaConsumer<>(properties, new StringDeserializer(), new ByteArrayDeserializer())) {
      List<PartitionInfo> infos = consumer.partitionsFor(topic, timeout);
      if (infos == null || infos.isEmpty()) {
        throw new IllegalArgumentException("topic " + topic + " does not exist");
      }
      List<TopicPartition> partitions = new ArrayList<>();
      infos.forEach(info -> partitions.add(new TopicPartition(topic, info.partition())));
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      // Under read_committed, the end is the last stable offset: nothing past an open transaction.
      Map<TopicPartition, Long> end = consumer.endOffsets(partitions, timeout);
      long deadline = System.nanoTime() + timeout.toNanos();
      while (!reached(consumer, end)) {
        if (System.nanoTime() > deadline) {
          throw new TimeoutException(
              "reading " + topic + " did not reach its end within " + timeout);
        }
        for (ConsumerRecord<String, byte[]> record : consumer.poll(Duration.ofMillis(200))) {
          if (record.offset() < end.get(new TopicPartition(topic, record.partition()))) {
            each.accept(record);
          }
        }
      }
    }
  }

  private static boolean reached(KafkaConsumer<?, ?> consumer, Map<TopicPartition, Long> end) {
    for (Map.Entry<TopicPartition, Long> partition : end.entrySet()) {
      if (consumer.position(partition.getKey()) < partition.getValue()) {
        return false;
      }
    }
    return true;
  }
}
