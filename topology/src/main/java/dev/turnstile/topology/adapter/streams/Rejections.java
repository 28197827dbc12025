package dev.turnstile.topology.adapter.streams;

import com.fasterxml.jackson.databind.JsonNode;
import dev.turnstile.schemas.Json;
import dev.turnstile.schemas.RejectedEvent;
import dev.turnstile.schemas.RejectionReason;
import dev.turnstile.schemas.TopicCatalogue;
import java.io.IOException;
import java.time.Instant;
import java.util.Base64;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;

/** Builds {@code rejected-events.v1} values that carry the original record. */
final class Rejections {

  private static final JsonSerde<RejectedEvent> SERDE = new JsonSerde<>(RejectedEvent.class);

  private Rejections() {}

  /**
   * A {@code rejected-events.v1} record for an input record or, from a punctuator, for an event
   * held in state ({@code source} null).
   *
   * @param originalValue the input record's value, when the rejection is about it
   * @param originalJson the event as JSON, when there is no input record value
   * @param timestamp the output record's timestamp
   */
  static Record<String, byte[]> record(
      RejectionReason reason,
      String detail,
      String stage,
      String key,
      String eventId,
      RecordMetadata source,
      byte[] originalValue,
      JsonNode originalJson,
      long nowMillis,
      long timestamp) {
    String id =
        source != null
            ? stage + "/" + source.topic() + "/" + source.partition() + "/" + source.offset()
            : stage + "/" + key + "/" + eventId + "/" + reason;
    return new Record<>(
        key,
        value(reason, detail, stage, key, eventId, source, originalValue, originalJson, nowMillis),
        timestamp,
        OutputHeaders.cloudEvent(
            TopicCatalogue.REJECTED_EVENTS,
            id,
            "dev.turnstile.rejected-event.v1",
            key,
            Instant.ofEpochMilli(nowMillis)));
  }

  /**
   * Forwards to {@code rejected-events} a rejection of the record being processed, carrying its
   * value and its topic, partition and offset.
   */
  static void forwardInput(
      ProcessorContext<String, byte[]> context,
      Record<String, byte[]> input,
      RejectionReason reason,
      String detail,
      String stage,
      String eventId) {
    context.forward(
        record(
            reason,
            detail,
            stage,
            input.key(),
            eventId,
            context.recordMetadata().orElse(null),
            input.value(),
            null,
            context.currentSystemTimeMs(),
            input.timestamp()),
        Names.REJECTED_EVENTS);
  }

  private static byte[] value(
      RejectionReason reason,
      String detail,
      String stage,
      String key,
      String eventId,
      RecordMetadata source,
      byte[] originalValue,
      JsonNode originalJson,
      long nowMillis) {
    JsonNode event = originalJson;
    String raw = null;
    if (event == null && originalValue != null) {
      try {
        event = Json.mapper().readTree(originalValue);
      } catch (IOException notJson) {
        raw = Base64.getEncoder().encodeToString(originalValue);
      }
    }
    RejectedEvent rejected =
        new RejectedEvent(
            reason,
            detail,
            stage,
            key,
            eventId,
            source == null ? null : source.topic(),
            source == null ? null : source.partition(),
            source == null ? null : source.offset(),
            Instant.ofEpochMilli(nowMillis),
            event,
            raw);
    return SERDE.write(rejected);
  }
}
