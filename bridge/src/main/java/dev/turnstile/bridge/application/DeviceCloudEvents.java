package dev.turnstile.bridge.application;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectWriter;
import dev.turnstile.schemas.AuthContext;
import dev.turnstile.schemas.CloudEventHeaders;
import dev.turnstile.schemas.DeviceEvent;
import dev.turnstile.schemas.DeviceEventType;
import dev.turnstile.schemas.Json;
import io.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.util.EnumMap;
import java.util.Map;

/**
 * A checked device event as the CloudEvent the bridge writes: attributes as headers, JSON data, and
 * who sent it as the CloudEvents Auth Context extension.
 */
final class DeviceCloudEvents {

  static final URI DATA_SCHEMA = schemaId("dev/turnstile/schemas/device-event.v1.schema.json");

  /** The mapper's writer for the one type written, its serializer found once. */
  private static final ObjectWriter DEVICE_EVENT = Json.mapper().writerFor(DeviceEvent.class);

  /** {@code ce_type} of each event type. */
  private static final Map<DeviceEventType, String> TYPES = new EnumMap<>(DeviceEventType.class);

  static {
    for (DeviceEventType type : DeviceEventType.values()) {
      TYPES.put(type, CloudEventHeaders.deviceEventType(type));
    }
  }

  private DeviceCloudEvents() {}

  /**
   * @param sender who sent it; {@code null} (authentication off) records no auth context
   */
  static CloudEvent of(DeviceEvent event, AuthContext sender) {
    return new Sender(sender).of(event);
  }

  /**
   * The CloudEvents of one sender's events: what is the same for all of them (its Auth Context
   * claims as JSON, the device's {@code source}) is worked out once, not once per event of a batch.
   * Not thread-safe: one per request.
   */
  static final class Sender {
    private final AuthContext sender;
    private final String claimsJson;
    private String deviceId;
    private URI source;

    /**
     * @param sender who sent the events; {@code null} (authentication off) records no auth context
     */
    Sender(AuthContext sender) {
      this.sender = sender;
      this.claimsJson = sender == null || sender.claims().isEmpty() ? null : sender.claimsJson();
    }

    CloudEvent of(DeviceEvent event) {
      byte[] data;
      try {
        data = DEVICE_EVENT.writeValueAsBytes(event);
      } catch (JsonProcessingException e) {
        throw new IllegalStateException("a DeviceEvent always serialises", e);
      }
      if (!event.deviceId().equals(deviceId)) {
        deviceId = event.deviceId();
        source = URI.create(CloudEventHeaders.deviceSource(deviceId));
      }
      CloudEventBuilder builder = CloudEventBuilder.v1();
      if (sender != null) {
        AuthContexts.record(builder, sender, claimsJson);
      }
      return builder
          .withId(event.eventId())
          .withSource(source)
          .withType(TYPES.get(event.type()))
          .withTime(event.occurredAt())
          .withSubject(event.deviceId())
          .withDataContentType("application/json")
          .withDataSchema(DATA_SCHEMA)
          .withData(data)
          .build();
    }
  }

  private static URI schemaId(String resource) {
    try (InputStream in = DeviceCloudEvents.class.getClassLoader().getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException("schema resource missing: " + resource);
      }
      return URI.create(Json.mapper().readTree(in).path("$id").asText());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
