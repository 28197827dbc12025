package dev.turnstile.bridge.adapter.kafka;

import dev.turnstile.bridge.adapter.servicebus.RawTopic;
import dev.turnstile.bridge.port.out.PublishEventPort;
import dev.turnstile.bridge.port.out.PublishEventPortContract;
import dev.turnstile.testkit.EmbeddedKafka;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The Kafka adapter keeps the port's contract on a real broker (one per class). */
class KafkaEventPublisherContractIT extends PublishEventPortContract {

  private static final AtomicInteger TOPICS = new AtomicInteger();
  private static EmbeddedKafka kafka;
  private static KafkaEventPublisher publisher;

  @BeforeAll
  static void start() {
    kafka = EmbeddedKafka.start(null);
    publisher =
        new KafkaEventPublisher(
            Map.of("bootstrap.servers", kafka.bootstrapServers()),
            Duration.ofSeconds(10),
            100,
            Clock.systemUTC());
  }

  @AfterAll
  static void stop() {
    if (publisher != null) {
      publisher.close();
    }
    if (kafka != null) {
      kafka.close();
    }
  }

  @Override
  protected PublishEventPort port() {
    return publisher;
  }

  /** Three partitions, so that "one key, one partition" is a claim and not a given. */
  @Override
  protected String freshTopic() {
    String topic = "contract-" + TOPICS.incrementAndGet();
    kafka.createTopics(List.of(new NewTopic(topic, 3, (short) 1)));
    return topic;
  }

  @Override
  protected List<Stored> readBack(String topic, int count) {
    return RawTopic.readAll(kafka.bootstrapServers(), topic).stream()
        .sorted(
            Comparator.comparingInt((ConsumerRecord<String, byte[]> r) -> r.partition())
                .thenComparingLong(ConsumerRecord::offset))
        .map(KafkaEventPublisherContractIT::stored)
        .toList();
  }

  private static Stored stored(ConsumerRecord<String, byte[]> record) {
    Map<String, String> headers = new HashMap<>();
    for (Header header : record.headers()) {
      headers.put(header.key(), new String(header.value(), StandardCharsets.UTF_8));
    }
    return new Stored(record.key(), record.partition(), record.offset(), headers, record.value());
  }
}
