package dev.turnstile.topology.domain.session;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.turnstile.schemas.DeviceEvent;
import dev.turnstile.schemas.DeviceSessionEvent;
import dev.turnstile.schemas.DeviceSessionEventType;
import dev.turnstile.schemas.Json;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.Optional;
import java.util.UUID;

/**
 * One open session of a device, as opened by a {@code Started} event.
 *
 * @param sessionId deterministic: name-based UUID of {@code deviceId} and {@code startEventId}
 * @param sessionRef the device's session reference, or {@code null}
 * @param startEventId the {@code Started} event's id
 * @param startedAt device time of the {@code Started} event
 * @param openedAtMillis arrival time (epoch ms) of the {@code Started} event; expiry counts from it
 * @param attributes the {@code Started} event's attributes, or {@code null}
 */
public record DeviceSession(
    String deviceId,
    String sessionId,
    String sessionRef,
    String startEventId,
    OffsetDateTime startedAt,
    long openedAtMillis,
    JsonNode attributes) {

  /** Opens a session from a {@code Started} event that arrived at {@code arrivedAtMillis}. */
  static DeviceSession open(DeviceEvent started, long arrivedAtMillis) {
    return new DeviceSession(
        started.deviceId(),
        sessionId(started.deviceId(), started.eventId()),
        started.sessionRef(),
        started.eventId(),
        started.occurredAt(),
        arrivedAtMillis,
        started.attributes());
  }

  /** The id a session started by {@code startEventId} on {@code deviceId} gets, on every replay. */
  public static String sessionId(String deviceId, String startEventId) {
    byte[] name = (deviceId + '\u0000' + startEventId).getBytes(StandardCharsets.UTF_8);
    return UUID.nameUUIDFromBytes(name).toString();
  }

  /**
   * Closes this session with {@code finished}, or says why not: the exit may not precede the entry
   * (device time).
   *
   * @return the {@code Closed} event, or empty when {@code finished} precedes the start
   */
  Optional<DeviceSessionEvent> close(DeviceEvent finished) {
    if (finished.occurredAt().isBefore(startedAt)) {
      return Optional.empty();
    }
    long duration = Duration.between(startedAt, finished.occurredAt()).toMillis();
    return Optional.of(
        new DeviceSessionEvent(
            DeviceSessionEventType.Closed,
            deviceId,
            sessionId,
            sessionRef,
            startedAt,
            finished.occurredAt(),
            duration,
            startEventId,
            finished.eventId(),
            null,
            mergedAttributes(attributes, finished.attributes())));
  }

  DeviceSessionEvent opened() {
    return event(DeviceSessionEventType.Opened, null);
  }

  DeviceSessionEvent superseded(String byEventId) {
    return event(DeviceSessionEventType.Superseded, byEventId);
  }

  DeviceSessionEvent expired() {
    return event(DeviceSessionEventType.Expired, null);
  }

  private DeviceSessionEvent event(DeviceSessionEventType type, String supersededBy) {
    return new DeviceSessionEvent(
        type,
        deviceId,
        sessionId,
        sessionRef,
        startedAt,
        null,
        null,
        startEventId,
        null,
        supersededBy,
        attributes);
  }

  private static JsonNode mergedAttributes(JsonNode started, JsonNode finished) {
    if (started == null || !started.isObject()) {
      return finished;
    }
    if (finished == null || !finished.isObject()) {
      return started;
    }
    ObjectNode merged = Json.mapper().createObjectNode();
    merged.setAll((ObjectNode) started);
    merged.setAll((ObjectNode) finished);
    return merged;
  }
}
