package dev.turnstile.examples;

import dev.turnstile.schemas.DeviceSessionEvent;
import dev.turnstile.schemas.Json;
import dev.turnstile.schemas.TopicCatalogue;
import io.cloudevents.CloudEvent;
import io.cloudevents.kafka.CloudEventDeserializer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * The example consumer of {@code docs/consuming.md}: a plain {@link KafkaConsumer} with the
 * standard {@link CloudEventDeserializer}, reading {@code device-sessions.v1}. Compiled and tested
 * with the schemas module so the guide cannot rot.
 */
public final class DeviceSessionsConsumer implements AutoCloseable {

  private final KafkaConsumer<String, CloudEvent> consumer;

  public DeviceSessionsConsumer(String bootstrapServers, String groupId, String topicPrefix) {
    consumer =
        new KafkaConsumer<>(
            config(bootstrapServers, groupId),
            new StringDeserializer(),
            new CloudEventDeserializer());
    consumer.subscribe(List.of(TopicCatalogue.DEVICE_SESSIONS.name(topicPrefix)));
  }

  /** What every Turnstile consumer needs: committed records only, offsets committed by hand. */
  static Map<String, Object> config(String bootstrapServers, String groupId) {
    return Map.of(
        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
        bootstrapServers,
        ConsumerConfig.GROUP_ID_CONFIG,
        groupId,
        // The topology writes in Kafka transactions: without this you see aborted attempts too.
        ConsumerConfig.ISOLATION_LEVEL_CONFIG,
        "read_committed",
        ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
        false,
        ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
        "earliest");
  }

  /** Polls once, hands each session event to {@code handler}, then commits. */
  public void pollOnce(Consumer<DeviceSessionEvent> handler) {
    for (ConsumerRecord<String, CloudEvent> record : consumer.poll(Duration.ofSeconds(1))) {
      handler.accept(read(record));
    }
    // After a crash before this commit the batch comes again: make the handler idempotent by
    // ce_id (record.value().getId()), which is stable for the same effect.
    consumer.commitSync();
  }

  /** The session event in a record; its CloudEvents attributes are on {@code record.value()}. */
  static DeviceSessionEvent read(ConsumerRecord<String, CloudEvent> record) {
    CloudEvent event = record.value();
    if (!event.getType().startsWith("dev.turnstile.device-session.")) {
      throw new IllegalArgumentException("not a device session event: " + event.getType());
    }
    try {
      return Json.mapper().readValue(event.getData().toBytes(), DeviceSessionEvent.class);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void close() {
    consumer.close();
  }
}
