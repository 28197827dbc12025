package dev.turnstile.schemas;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;

/**
 * An input record a rule refused, on {@code rejected-events.v1} (schema {@code rejected-event.v1}).
 * Nothing is dropped silently: the original travels with the reason.
 *
 * @param reason machine-readable code, see {@link RejectionReason}
 * @param detail a sentence for humans
 * @param stage the processor that refused it, e.g. {@code device-session}
 * @param key the input record's key
 * @param eventId the event's id when it could be read
 * @param sourceTopic topic of the input record
 * @param sourcePartition its partition
 * @param sourceOffset its offset
 * @param rejectedAt the topology's clock when the decision was made
 * @param event the original value when it was JSON
 * @param rawValue the original value, base64, when it was not JSON
 */
public record RejectedEvent(
    RejectionReason reason,
    String detail,
    String stage,
    String key,
    String eventId,
    String sourceTopic,
    Integer sourcePartition,
    Long sourceOffset,
    Instant rejectedAt,
    JsonNode event,
    String rawValue) {}
