package dev.turnstile.faults;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Tails one output topic as a downstream consumer would ({@code read_committed}, from the
 * beginning) and remembers when each key that {@code watched} accepts first appeared. The consumer
 * rides through broker faults on its own: it only reads.
 */
final class OutputWatcher implements AutoCloseable {

  private final Map<String, Long> firstSeen = new ConcurrentHashMap<>();
  private final Thread thread;
  private volatile boolean closed;

  OutputWatcher(String bootstrap, String topic, Predicate<String> watched) {
    this.thread = new Thread(() -> run(bootstrap, topic, watched), "watch-" + topic);
    thread.setDaemon(true);
    thread.start();
  }

  /** When {@code key} was first read, epoch ms; null if not yet. */
  Long firstSeen(String key) {
    return firstSeen.get(key);
  }

  private void run(String bootstrap, String topic, Predicate<String> watched) {
    Map<String, Object> config =
        Map.of(
            ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG,
            false,
            ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
            bootstrap,
            ConsumerConfig.GROUP_ID_CONFIG,
            "turnstile-faults-watch-" + UUID.randomUUID(),
            ConsumerConfig.ISOLATION_LEVEL_CONFIG,
            "read_committed",
            ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
            "earliest",
            ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
            false,
            ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG,
            StringDeserializer.class,
            ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG,
            ByteArrayDeserializer.class);
    try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(config)) {
      List<TopicPartition> partitions =
          consumer.partitionsFor(topic).stream()
              .map(p -> new TopicPartition(topic, p.partition()))
              .toList();
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      while (!closed) {
        for (ConsumerRecord<String, byte[]> record : consumer.poll(Duration.ofMillis(200))) {
          if (record.key() != null && watched.test(record.key())) {
            firstSeen.putIfAbsent(record.key(), System.currentTimeMillis());
          }
        }
      }
    } catch (RuntimeException e) {
      if (!closed) {
        throw e;
      }
    }
  }

  @Override
  public void close() {
    closed = true;
    try {
      thread.join(5_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
