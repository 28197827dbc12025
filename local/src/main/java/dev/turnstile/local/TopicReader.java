package dev.turnstile.local;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/** Reads a whole topic as a downstream consumer would: {@code read_committed}. */
public final class TopicReader {

  private TopicReader() {}

  /**
   * Reads {@code topic} from the beginning until {@code done} holds for what was read and the
   * consumer has reached the end, or until {@code timeout} passes.
   */
  static List<ConsumerRecord<String, byte[]>> readUntil(
      String bootstrap,
      String topic,
      Predicate<List<ConsumerRecord<String, byte[]>>> done,
      Duration timeout) {
    List<ConsumerRecord<String, byte[]>> records = new ArrayList<>();
    try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(config(bootstrap))) {
      List<TopicPartition> partitions = assignFromBeginning(consumer, bootstrap, topic);
      long deadline = System.nanoTime() + timeout.toNanos();
      while (System.nanoTime() < deadline) {
        consumer.poll(Duration.ofMillis(200)).forEach(records::add);
        if (done.test(records) && atEnd(consumer, partitions)) {
          break;
        }
      }
    }
    return records;
  }

  /**
   * Hands every committed record of {@code topic}, from the beginning to its end as of the last
   * poll, to {@code each}, without keeping them: for topics too large to hold.
   *
   * @return how many records were read
   * @throws IllegalStateException when the end is not reached within {@code timeout}
   */
  public static long scan(
      String bootstrap,
      String topic,
      java.util.function.Consumer<ConsumerRecord<String, byte[]>> each,
      Duration timeout) {
    long read = 0;
    try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(config(bootstrap))) {
      List<TopicPartition> partitions = assignFromBeginning(consumer, bootstrap, topic);
      long deadline = System.nanoTime() + timeout.toNanos();
      while (!atEnd(consumer, partitions)) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("did not reach the end of " + topic + " in " + timeout);
        }
        for (ConsumerRecord<String, byte[]> record : consumer.poll(Duration.ofMillis(200))) {
          each.accept(record);
          read++;
        }
      }
    }
    return read;
  }

  private static List<TopicPartition> assignFromBeginning(
      KafkaConsumer<String, byte[]> consumer, String bootstrap, String topic) {
    List<TopicPartition> partitions;
    try {
      partitions =
          consumer.partitionsFor(topic).stream()
              .map(p -> new TopicPartition(topic, p.partition()))
              .toList();
    } catch (org.apache.kafka.common.errors.TimeoutException e) {
      throw new IllegalArgumentException("cannot reach Kafka at " + bootstrap + " within 15 s");
    }
    if (partitions.isEmpty()) {
      throw new IllegalArgumentException("no topic " + topic + " at " + bootstrap);
    }
    consumer.assign(partitions);
    consumer.seekToBeginning(partitions);
    return partitions;
  }

  private static Map<String, Object> config(String bootstrap) {
    // A reader must never create what it reads: a consumer's metadata request for a missing topic
    // creates it wherever the broker allows auto-creation (its default), so a typo would leave an
    // empty topic behind and the next run would read it without complaint.
    return Map.of(
        ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG,
        false,
        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
        bootstrap,
        ConsumerConfig.GROUP_ID_CONFIG,
        "turnstile-demo-reader-" + UUID.randomUUID(),
        ConsumerConfig.ISOLATION_LEVEL_CONFIG,
        "read_committed",
        ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
        "earliest",
        ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
        false,
        ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG,
        StringDeserializer.class,
        ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG,
        ByteArrayDeserializer.class,
        ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG,
        15_000);
  }

  private static boolean atEnd(KafkaConsumer<?, ?> consumer, List<TopicPartition> partitions) {
    Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
    return partitions.stream().allMatch(p -> consumer.position(p) >= end.get(p));
  }

  /**
   * Prints every committed record of {@code topic} until it has been idle for {@code idle}.
   *
   * @return how many records it printed
   */
  static int print(String bootstrap, String topic, Duration idle, java.io.PrintStream out) {
    long[] lastSeen = {System.nanoTime()};
    int[] seen = {0};
    readUntil(
        bootstrap,
        topic,
        read -> {
          for (int i = seen[0]; i < read.size(); i++) {
            ConsumerRecord<String, byte[]> r = read.get(i);
            StringBuilder headers = new StringBuilder();
            r.headers()
                .forEach(
                    h ->
                        headers
                            .append(headers.length() == 0 ? "" : " ")
                            .append(h.key())
                            .append('=')
                            .append(
                                new String(h.value(), java.nio.charset.StandardCharsets.UTF_8)));
            out.printf(
                "%s-%d@%d key=%s %s%n  %s%n",
                r.topic(),
                r.partition(),
                r.offset(),
                r.key(),
                headers,
                r.value() == null
                    ? "null"
                    : new String(r.value(), java.nio.charset.StandardCharsets.UTF_8));
            lastSeen[0] = System.nanoTime();
          }
          seen[0] = read.size();
          return System.nanoTime() - lastSeen[0] > idle.toNanos();
        },
        Duration.ofDays(365));
    return seen[0];
  }
}
