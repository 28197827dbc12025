package dev.turnstile.bench;

import io.vertx.core.buffer.Buffer;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;

/**
 * The requests of the bridge benchmark: a station's single event, a batch of one station's events,
 * and the same event as a Strimzi HTTP Bridge record. Stations are taken in turn; every event id is
 * the run's prefix and the request's sequence number, so each is new.
 */
final class BridgeRequests {

  private final int devices;
  private final String strimziTopic;
  private final String authorization;
  private final String occurredAt = OffsetDateTime.now(ZoneOffset.UTC).minusHours(1).toString();

  /**
   * @param authorization the {@code Authorization} header of the Turnstile requests
   */
  BridgeRequests(int devices, String strimziTopic, String authorization) {
    this.devices = devices;
    this.strimziTopic = strimziTopic;
    this.authorization = authorization;
  }

  HttpLoad.Requests single(String prefix) {
    return sequence ->
        new HttpLoad.Request(
            "/api/v1/devices/" + device(sequence) + "/events",
            "application/json",
            Buffer.buffer(event(prefix + sequence)),
            authorization);
  }

  HttpLoad.Requests batch(String prefix, int size) {
    return sequence -> {
      StringBuilder body = new StringBuilder("[");
      for (int i = 0; i < size; i++) {
        body.append(i == 0 ? "" : ",").append(event(prefix + sequence + "-" + i));
      }
      return new HttpLoad.Request(
          "/api/v1/devices/" + device(sequence) + "/events:batch",
          "application/json",
          Buffer.buffer(body.append(']').toString()),
          authorization);
    };
  }

  HttpLoad.Requests strimzi(String prefix) {
    return sequence ->
        new HttpLoad.Request(
            "/topics/" + strimziTopic,
            "application/vnd.kafka.json.v2+json",
            Buffer.buffer(
                "{\"records\":[{\"key\":\""
                    + device(sequence)
                    + "\",\"value\":"
                    + event(prefix + sequence)
                    + "}]}"),
            null);
  }

  private String device(long sequence) {
    return "station-" + (sequence % devices);
  }

  /** A device event as a station sends it; the id is the run's own. */
  private String event(String eventId) {
    return "{\"eventId\":\""
        + eventId
        + "\",\"type\":\"Started\",\"occurredAt\":\""
        + occurredAt
        + "\",\"sessionRef\":\""
        + eventId
        + "\",\"attributes\":{\"connector\":2}}";
  }
}
