package dev.turnstile.local;

import com.fasterxml.jackson.databind.JsonNode;
import dev.turnstile.schemas.Json;
import dev.turnstile.schemas.TopicCatalogue;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Everything the corpus run needs to see, read as a downstream consumer reads it ({@code
 * read_committed}) and kept as it arrives: the two raw topics and every output topic.
 */
final class CorpusOutputs implements AutoCloseable {

  private final KafkaConsumer<String, byte[]> consumer;
  private final List<ConsumerRecord<String, byte[]>> deviceRaw = new ArrayList<>();
  private final List<ConsumerRecord<String, byte[]>> serviceBusRaw = new ArrayList<>();
  private final List<JsonNode> sessions = new ArrayList<>();
  private final List<JsonNode> rejections = new ArrayList<>();
  private final List<JsonNode> mergeResults = new ArrayList<>();
  private final List<JsonNode> postMerge = new ArrayList<>();

  CorpusOutputs(String bootstrap) {
    consumer =
        new KafkaConsumer<>(
            Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                bootstrap,
                ConsumerConfig.GROUP_ID_CONFIG,
                "corpus-" + UUID.randomUUID(),
                ConsumerConfig.ISOLATION_LEVEL_CONFIG,
                "read_committed",
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
                false,
                ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG,
                false),
            new StringDeserializer(),
            new ByteArrayDeserializer());
    List<TopicPartition> partitions = new ArrayList<>();
    for (var topic :
        List.of(
            TopicCatalogue.DEVICE_EVENTS_RAW,
            TopicCatalogue.SERVICEBUS_MESSAGES_RAW,
            TopicCatalogue.DEVICE_SESSIONS,
            TopicCatalogue.REJECTED_EVENTS,
            TopicCatalogue.MERGE_RESULTS,
            TopicCatalogue.POST_MERGE)) {
      for (int p = 0; p < topic.partitions(); p++) {
        partitions.add(new TopicPartition(topic.baseName(), p));
      }
    }
    consumer.assign(partitions);
    consumer.seekToBeginning(partitions);
  }

  /** Reads what has arrived since the last call. */
  synchronized void poll() {
    for (ConsumerRecord<String, byte[]> record : consumer.poll(Duration.ofMillis(200))) {
      String topic = record.topic();
      if (topic.equals(TopicCatalogue.DEVICE_EVENTS_RAW.baseName())) {
        deviceRaw.add(record);
      } else if (topic.equals(TopicCatalogue.SERVICEBUS_MESSAGES_RAW.baseName())) {
        serviceBusRaw.add(record);
      } else if (topic.equals(TopicCatalogue.DEVICE_SESSIONS.baseName())) {
        sessions.add(json(record));
      } else if (topic.equals(TopicCatalogue.REJECTED_EVENTS.baseName())) {
        rejections.add(json(record));
      } else if (topic.equals(TopicCatalogue.MERGE_RESULTS.baseName())) {
        mergeResults.add(json(record));
      } else if (topic.equals(TopicCatalogue.POST_MERGE.baseName())) {
        postMerge.add(json(record));
      }
    }
  }

  /** The raw record the bridge wrote for a Service Bus message with this corpus id. */
  synchronized ConsumerRecord<String, byte[]> serviceBusRecord(String corpusId) {
    return serviceBusRaw.stream()
        .filter(r -> corpusId.equals(header(r, "sb-prop-" + HostileCorpusIT.CORPUS_PROPERTY)))
        .findFirst()
        .orElse(null);
  }

  /**
   * The reason of the rejection of an event: by its id, or by the topic, partition and offset of
   * its raw record (a record without an id is rejected by those alone).
   */
  synchronized String rejectionReason(String eventId, ConsumerRecord<?, ?> raw) {
    for (JsonNode rejection : rejections) {
      boolean byId = eventId != null && eventId.equals(rejection.path("eventId").asText(null));
      boolean byOffset =
          raw != null
              && raw.topic().equals(rejection.path("sourceTopic").asText())
              && raw.partition() == rejection.path("sourcePartition").asInt(-1)
              && raw.offset() == rejection.path("sourceOffset").asLong(-1);
      if (byId || byOffset) {
        return rejection.path("reason").asText();
      }
    }
    return null;
  }

  /** Whether a device event opened or closed a session. */
  synchronized boolean sessionMentions(String eventId) {
    return sessions.stream()
        .anyMatch(
            s ->
                eventId.equals(s.path("startEventId").asText(null))
                    || eventId.equals(s.path("finishEventId").asText(null)));
  }

  /** Whether a Service Bus event contributed to a merge result. */
  synchronized boolean merged(String source, String eventId) {
    for (JsonNode result : mergeResults) {
      for (JsonNode contribution : result.path("contributingEvents")) {
        if (eventId.equals(contribution.path("eventId").asText(null))
            && source.equals(contribution.path("source").asText(null))) {
          return true;
        }
      }
    }
    return false;
  }

  synchronized long closedSessions(String sessionRef) {
    return sessions.stream()
        .filter(s -> "Closed".equals(s.path("type").asText()))
        .filter(s -> sessionRef.equals(s.path("sessionRef").asText(null)))
        .count();
  }

  synchronized List<JsonNode> settled(String mergeKey) {
    return postMerge.stream().filter(s -> mergeKey.equals(s.path("mergeKey").asText())).toList();
  }

  static String header(ConsumerRecord<?, ?> record, String name) {
    Header header = record.headers().lastHeader(name);
    return header == null || header.value() == null
        ? null
        : new String(header.value(), StandardCharsets.UTF_8);
  }

  private static JsonNode json(ConsumerRecord<String, byte[]> record) {
    try {
      return Json.mapper().readTree(record.value());
    } catch (IOException e) {
      throw new AssertionError(record.topic() + " holds a value that is not JSON", e);
    }
  }

  @Override
  public synchronized void close() {
    consumer.close();
  }
}
