package dev.turnstile.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.turnstile.schemas.CloudEventHeaders;
import dev.turnstile.schemas.DeviceEvent;
import dev.turnstile.schemas.DeviceEventType;
import dev.turnstile.schemas.DeviceSessionEvent;
import dev.turnstile.schemas.DeviceSessionEventType;
import dev.turnstile.schemas.Json;
import dev.turnstile.schemas.Topic;
import dev.turnstile.schemas.TopicCatalogue;
import dev.turnstile.testkit.EmbeddedKafka;
import dev.turnstile.topology.config.TopologyConfig;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A topology pod replaced by one with an empty state directory (a new Kubernetes pod) and a changed
 * policy: the deadline index, kept in memory, is rebuilt from the restored sessions under the new
 * policy, so a session opened before the change expires by it. Real broker.
 */
class TopologyRestartIT {

  static EmbeddedKafka kafka;

  @TempDir static Path dirs;

  @BeforeAll
  static void start() {
    kafka = EmbeddedKafka.start(dirs.resolve("kafka"));
    List<NewTopic> topics = new ArrayList<>();
    for (Topic topic : TopicCatalogue.ALL) {
      topics.add(new NewTopic(topic.baseName(), topic.partitions(), (short) 1));
    }
    kafka.createTopics(topics);
  }

  @AfterAll
  static void stop() {
    kafka.close();
  }

  private static TopologyConfig config(Path stateDir, Duration maxDuration) {
    Map<String, String> values = new HashMap<>();
    values.put("kafka.bootstrap.servers", kafka.bootstrapServers());
    values.put("topology.application-id", "restart-it");
    values.put("topology.state-dir", stateDir.toString());
    values.put("topology.session.max-duration-ms", Long.toString(maxDuration.toMillis()));
    values.put("topology.punctuate-interval-ms", "200");
    values.put("topology.num-standby-replicas", "0");
    values.put("kafka.streams.commit.interval.ms", "100");
    // Kafka Streams does not leave the group on close: the next pod waits out the session.
    values.put("kafka.streams.consumer.session.timeout.ms", "6000");
    return TopologyConfig.of(values);
  }

  @Test
  void aReplacedPodRebuildsItsDeadlinesFromTheRestoredSessionsUnderItsOwnPolicy() throws Exception {
    try (TopologyApplication first =
        TopologyApplication.start(
            config(Files.createTempDirectory(dirs, "pod-a"), Duration.ofHours(72)))) {
      await().atMost(Duration.ofSeconds(60)).until(first::ready);
      send(
          new DeviceEvent(
              "st-r",
              "s-1",
              DeviceEventType.Started,
              OffsetDateTime.parse("2026-01-05T08:00:00Z"),
              "ref-1",
              null,
              Instant.now()));
      assertThat(sessionEvents(1))
          .extracting(DeviceSessionEvent::type)
          .containsExactly(DeviceSessionEventType.Opened);
    }
    try (TopologyApplication second =
        TopologyApplication.start(
            config(Files.createTempDirectory(dirs, "pod-b"), Duration.ofSeconds(1)))) {
      await().atMost(Duration.ofSeconds(60)).until(second::ready);
      assertThat(sessionEvents(2))
          .extracting(DeviceSessionEvent::type)
          .containsExactly(DeviceSessionEventType.Opened, DeviceSessionEventType.Expired);
      assertThat(second.state()).isEqualTo(KafkaStreams.State.RUNNING);
    }
  }

  private static void send(DeviceEvent event) throws Exception {
    Properties props = new Properties();
    props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    try (KafkaProducer<String, byte[]> producer =
        new KafkaProducer<>(props, new StringSerializer(), new ByteArraySerializer())) {
      ProducerRecord<String, byte[]> record =
          new ProducerRecord<>(
              TopicCatalogue.DEVICE_EVENTS_RAW.baseName(),
              event.deviceId(),
              Json.mapper().writeValueAsBytes(event));
      record.headers().add(CloudEventHeaders.ID, event.eventId().getBytes(StandardCharsets.UTF_8));
      record
          .headers()
          .add(
              CloudEventHeaders.SOURCE,
              CloudEventHeaders.deviceSource(event.deviceId()).getBytes(StandardCharsets.UTF_8));
      producer.send(record).get();
    }
  }

  /** Reads device-sessions.v1 from the start, read_committed, until {@code count} records came. */
  private static List<DeviceSessionEvent> sessionEvents(int count) throws Exception {
    Properties props = new Properties();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    props.put(ConsumerConfig.GROUP_ID_CONFIG, "restart-it-reader-" + System.nanoTime());
    props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    props.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false);
    List<DeviceSessionEvent> events = new ArrayList<>();
    try (KafkaConsumer<String, byte[]> consumer =
        new KafkaConsumer<>(props, new StringDeserializer(), new ByteArrayDeserializer())) {
      consumer.subscribe(List.of(TopicCatalogue.DEVICE_SESSIONS.baseName()));
      long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      while (events.size() < count && System.nanoTime() < deadline) {
        for (var record : consumer.poll(Duration.ofMillis(200))) {
          events.add(Json.mapper().readValue(record.value(), DeviceSessionEvent.class));
        }
      }
    }
    return events;
  }
}
