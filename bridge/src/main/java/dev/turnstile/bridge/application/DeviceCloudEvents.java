package dev.turnstile.bridge.application;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.turnstile.schemas.AuthContext;
import dev.turnstile.schemas.CloudEventHeaders;
import dev.turnstile.schemas.DeviceEvent;
import dev.turnstile.schemas.Json;
import io.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;

/**
 * A checked device event as the CloudEvent the bridge writes: attributes as headers, JSON data, and
 * who sent it as the CloudEvents Auth Context extension.
 */
final class DeviceCloudEvents {

  static final URI DATA_SCHEMA = schemaId("dev/turnstile/schemas/device-event.v1.schema.json");

  private DeviceCloudEvents() {}

  /**
   * @param sender who sent it; {@code null} (authentication off) records no auth context
   */
  static CloudEvent of(DeviceEvent event, AuthContext sender) {
    byte[] data;
    try {
      data = Json.mapper().writeValueAsBytes(event);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a DeviceEvent always serialises", e);
    }
    CloudEventBuilder builder = CloudEventBuilder.v1();
    if (sender != null) {
      AuthContexts.record(builder, sender);
    }
    return builder
        .withId(event.eventId())
        .withSource(URI.create(CloudEventHeaders.deviceSource(event.deviceId())))
        .withType(CloudEventHeaders.deviceEventType(event.type()))
        .withTime(event.occurredAt())
        .withSubject(event.deviceId())
        .withDataContentType("application/json")
        .withDataSchema(DATA_SCHEMA)
        .withData(data)
        .build();
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
