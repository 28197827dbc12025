package dev.turnstile.topology.adapter.streams;

import com.fasterxml.jackson.databind.JsonNode;
import dev.turnstile.schemas.CloudEventHeaders;
import dev.turnstile.schemas.RejectedEvent;
import dev.turnstile.schemas.RejectionReason;
import dev.turnstile.schemas.StrictJson;
import dev.turnstile.schemas.TopicCatalogue;
import java.time.Instant;
import java.util.Base64;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;

/**
 * Builds {@code rejected-events.v1} records. A rejection carries the refused record's value (as
 * JSON when it is JSON, else base64) up to {@value #MAX_ORIGINAL_BYTES} bytes, and always its
 * topic, partition and offset, so even a record too large to copy can be found.
 */
final class Rejections {

  /** Largest original value copied into a rejection, so the rejection fits Kafka's 1 MiB. */
  static final int MAX_ORIGINAL_BYTES = 256 * 1024;

  static final String TYPE = "dev.turnstile.rejected-event.v1";

  private static final JsonSerde<RejectedEvent> SERDE = new JsonSerde<>(RejectedEvent.class);

  private Rejections() {}

  /**
   * What a stage says about an input it refuses.
   *
   * @param stage the processor's name
   * @param detail what is wrong, in terms the sender can act on
   */
  record Refusal(String stage, RejectionReason reason, String detail) {}

  /**
   * Forwards to {@code rejected-events} a rejection of the record being processed: key, {@code
   * ce_id}, topic, partition and offset from the record and its context.
   *
   * @param original the record's value as read from its topic (the parsed form may be all the
   *     processor holds otherwise)
   */
  static void forwardInput(
      ProcessorContext<Void, Void> context,
      Record<String, ?> input,
      byte[] original,
      Refusal refusal) {
    RecordMetadata source = context.recordMetadata().orElse(null);
    long now = context.currentSystemTimeMs();
    String eventId = HeaderText.of(input.headers(), CloudEventHeaders.ID);
    String id =
        source != null
            ? refusal.stage()
                + "/"
                + source.topic()
                + "/"
                + source.partition()
                + "/"
                + source.offset()
            : refusal.stage() + "/" + input.key() + "/" + eventId + "/" + refusal.reason();
    JsonNode json = originalJson(original);
    forward(
        context,
        new RejectedEvent(
            refusal.reason(),
            refusal.detail(),
            refusal.stage(),
            input.key(),
            eventId,
            source == null ? null : source.topic(),
            source == null ? null : source.partition(),
            source == null ? null : source.offset(),
            Instant.ofEpochMilli(now),
            json,
            json == null ? originalBase64(original) : null),
        id,
        input.timestamp());
  }

  /**
   * Forwards a rejection of an event held in state (a punctuator's, or one a later event settled),
   * not of the record being processed.
   */
  static void forwardHeld(
      ProcessorContext<Void, Void> context,
      String key,
      String eventId,
      JsonNode event,
      Refusal refusal,
      long timestamp) {
    long now = context.currentSystemTimeMs();
    forward(
        context,
        new RejectedEvent(
            refusal.reason(),
            refusal.detail(),
            refusal.stage(),
            key,
            eventId,
            null,
            null,
            null,
            Instant.ofEpochMilli(now),
            event,
            null),
        refusal.stage() + "/" + key + "/" + eventId + "/" + refusal.reason(),
        timestamp);
  }

  /** The rejection as a record for {@code rejected-events.v1}, for callers outside a processor. */
  static Record<String, byte[]> record(RejectedEvent rejected, String id, long timestamp) {
    return new Record<>(rejected.key(), SERDE.write(rejected), timestamp, headers(rejected, id));
  }

  static Headers headers(RejectedEvent rejected, String id) {
    Headers headers =
        OutputHeaders.cloudEvent(
            TopicCatalogue.REJECTED_EVENTS, id, TYPE, rejected.key(), rejected.rejectedAt());
    // The reason travels as a header too, so counting rejections never parses their values.
    headers.add(
        REASON_HEADER, rejected.reason().name().getBytes(java.nio.charset.StandardCharsets.UTF_8));
    return headers;
  }

  /** Header on {@code rejected-events.v1} records: the reason code (also in the value). */
  static final String REASON_HEADER = "turnstile-rejection-reason";

  /** To the stage's own rejections child: the refusing stage is the forwarding processor. */
  private static void forward(
      ProcessorContext<Void, Void> context, RejectedEvent rejected, String id, long timestamp) {
    Outputs.rejections(rejected.stage())
        .forward(context, new Record<>(rejected.key(), rejected, timestamp, headers(rejected, id)));
  }

  /** The serializer of {@code rejected-events.v1} values. */
  static Serializer<RejectedEvent> serializer() {
    return SERDE.serializer();
  }

  /** The original value as JSON when it is JSON of bounded size, else null. */
  static JsonNode originalJson(byte[] original) {
    if (original == null || original.length > MAX_ORIGINAL_BYTES) {
      return null;
    }
    try {
      return StrictJson.ownRecords().readTree(original);
    } catch (StrictJson.MalformedJsonException notJson) {
      return null;
    }
  }

  /** The original value in base64 when it is of bounded size, else null. */
  static String originalBase64(byte[] original) {
    return original == null || original.length > MAX_ORIGINAL_BYTES
        ? null
        : Base64.getEncoder().encodeToString(original);
  }
}
