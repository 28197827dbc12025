package dev.turnstile.schemas;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.OffsetDateTime;

/**
 * One change in a device session's life, on {@code device-sessions.v1} (schema {@code
 * device-session-event.v1}), keyed by {@code deviceId}.
 *
 * @param type {@code Opened}, {@code Closed}, {@code Superseded} or {@code Expired}
 * @param deviceId the device
 * @param sessionId deterministic id: a name-based UUID of {@code deviceId} and the starting event's
 *     id, so a replay gives the same id
 * @param sessionRef the device's session reference, when it sent one
 * @param startedAt the {@code Started} event's {@code occurredAt}
 * @param endedAt the {@code Finished} event's {@code occurredAt} ({@code Closed} only)
 * @param durationMillis {@code endedAt - startedAt} in milliseconds, never negative ({@code Closed}
 *     only)
 * @param startEventId the {@code Started} event's id
 * @param finishEventId the {@code Finished} event's id ({@code Closed} only)
 * @param supersededBy for {@code Superseded}: the id of the {@code Started} event that replaced
 *     this session
 * @param attributes the {@code Started} event's attributes merged with the {@code Finished} event's
 *     (the latter win on equal names)
 */
public record DeviceSessionEvent(
    DeviceSessionEventType type,
    String deviceId,
    String sessionId,
    String sessionRef,
    OffsetDateTime startedAt,
    OffsetDateTime endedAt,
    Long durationMillis,
    String startEventId,
    String finishEventId,
    String supersededBy,
    JsonNode attributes) {}
