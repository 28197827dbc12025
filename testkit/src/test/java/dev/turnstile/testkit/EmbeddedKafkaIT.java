package dev.turnstile.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class EmbeddedKafkaIT {

  static EmbeddedKafka kafka;

  @BeforeAll
  static void start() {
    kafka = EmbeddedKafka.start(null);
    kafka.createTopics(List.of(new NewTopic("probe.raw.v1", 1, (short) 1)));
  }

  @AfterAll
  static void stop() {
    kafka.close();
  }

  @Test
  @Timeout(180)
  void readCommittedSeesCommittedTransactionsOnlyAndSurvivesABrokerRestart() throws Exception {
    Map<String, Object> producerConfig =
        Map.of(
            ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
            kafka.bootstrapServers(),
            ProducerConfig.TRANSACTIONAL_ID_CONFIG,
            "probe-tx",
            ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG,
            StringSerializer.class,
            ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG,
            StringSerializer.class);
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(producerConfig)) {
      producer.initTransactions();
      producer.beginTransaction();
      producer.send(new ProducerRecord<>("probe.raw.v1", "k", "aborted"));
      producer.abortTransaction();
      producer.beginTransaction();
      producer.send(new ProducerRecord<>("probe.raw.v1", "k", "committed"));
      producer.commitTransaction();
    }

    kafka.stopBroker();
    kafka.restartBroker();

    assertThat(readAll("probe.raw.v1", 1)).containsExactly("committed");
  }

  private static List<String> readAll(String topic, int expected) {
    Map<String, Object> consumerConfig =
        Map.of(
            ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
            kafka.bootstrapServers(),
            ConsumerConfig.GROUP_ID_CONFIG,
            "probe-reader",
            ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
            "earliest",
            ConsumerConfig.ISOLATION_LEVEL_CONFIG,
            "read_committed",
            ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG,
            StringDeserializer.class,
            ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG,
            StringDeserializer.class);
    List<String> values = new ArrayList<>();
    try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(consumerConfig)) {
      consumer.subscribe(List.of(topic));
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (values.size() < expected && System.nanoTime() < deadline) {
        for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
          values.add(record.value());
        }
      }
      // One more poll: a value past the expected count would show here.
      consumer.poll(Duration.ofMillis(500)).forEach(r -> values.add(r.value()));
    }
    return values;
  }
}
