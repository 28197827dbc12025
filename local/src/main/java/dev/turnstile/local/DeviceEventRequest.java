package dev.turnstile.local;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.turnstile.schemas.Json;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;

/**
 * One HTTP request a charging station sends: {@code POST /api/v1/devices/{deviceId}/events}.
 *
 * @param deviceId the station
 * @param eventId {@code <sessionId>-started} or {@code <sessionId>-finished}, stable across retries
 * @param body the JSON body
 */
public record DeviceEventRequest(String deviceId, String eventId, String body) {

  private static final DateTimeFormatter RFC_3339 =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ssXXX");

  /** The row's {@code Started} and {@code Finished} events, in that order. */
  public static List<DeviceEventRequest> of(ChargingSession s) {
    ObjectNode started = base(s, "started", "Started", s.created());
    ObjectNode startedAttributes = started.putObject("attributes");
    startedAttributes.put("userId", s.userId());
    startedAttributes.put("locationId", s.locationId());
    startedAttributes.put("platform", s.platform());
    startedAttributes.put("facilityType", s.facilityType());
    ObjectNode finished = base(s, "finished", "Finished", s.ended());
    ObjectNode finishedAttributes = finished.putObject("attributes");
    finishedAttributes.put("kwhTotal", s.kwhTotal());
    finishedAttributes.put("dollars", s.dollars());
    finishedAttributes.put("chargeTimeHrs", s.chargeTimeHrs());
    return List.of(
        new DeviceEventRequest(s.stationId(), s.sessionId() + "-started", started.toString()),
        new DeviceEventRequest(s.stationId(), s.sessionId() + "-finished", finished.toString()));
  }

  /** The device-time instant the replay gives a local timestamp of the file. */
  public static String occurredAt(LocalDateTime local) {
    return local.atZone(EvChargingDataset.ZONE).toOffsetDateTime().format(RFC_3339);
  }

  private static ObjectNode base(ChargingSession s, String suffix, String type, LocalDateTime at) {
    ObjectNode body = Json.mapper().createObjectNode();
    body.put("eventId", s.sessionId() + "-" + suffix);
    body.put("type", type);
    body.put("occurredAt", occurredAt(at));
    body.put("sessionRef", s.sessionId());
    return body;
  }
}
