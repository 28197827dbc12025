package dev.turnstile.contracttest;

import dev.turnstile.schemas.AuthContext;
import io.cloudevents.CloudEvent;
import io.cloudevents.SpecVersion;
import io.cloudevents.kafka.CloudEventDeserializer;
import java.util.Arrays;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.common.header.Headers;

/**
 * Reads a record as a downstream consumer would: with the standard {@link CloudEventDeserializer}
 * (Kafka protocol binding, binary content mode), and fails when it cannot or when the event is not
 * a complete CloudEvents 1.0 event carrying the record value as JSON data.
 */
public final class CloudEventsCheck {

  private CloudEventsCheck() {}

  /** The event a standard consumer sees in {@code (topic, headers, value)}. */
  public static CloudEvent assertCloudEvent(String topic, Headers headers, byte[] value) {
    CloudEvent event;
    try (CloudEventDeserializer deserializer = new CloudEventDeserializer()) {
      deserializer.configure(Map.of(), false);
      event = deserializer.deserialize(topic, headers, value);
    } catch (RuntimeException e) {
      throw new AssertionError("a CloudEventDeserializer cannot read a record of " + topic, e);
    }
    String where = topic + " " + event.getId();
    require(event.getSpecVersion() == SpecVersion.V1, where, "specversion 1.0");
    require(notBlank(event.getId()), where, "ce_id");
    require(event.getSource() != null, where, "ce_source");
    require(notBlank(event.getType()), where, "ce_type");
    require(event.getTime() != null, where, "ce_time");
    require("application/json".equals(event.getDataContentType()), where, "content-type json");
    require(event.getDataSchema() != null, where, "ce_dataschema");
    require(
        event.getData() != null && Arrays.equals(event.getData().toBytes(), value),
        where,
        "the record value as data");
    return event;
  }

  /**
   * A record of a raw topic (what the bridge wrote, whatever the sender's content mode) as a
   * standard consumer reads it: binary content mode (never a {@code content-type} of the {@code
   * application/cloudevents} family next to {@code ce_*} headers), specversion 1.0, {@code ce_id},
   * {@code ce_source} and {@code ce_type} set, and the record value as the event's data.
   */
  public static CloudEvent assertBinaryCloudEvent(String topic, Headers headers, byte[] value) {
    var contentType = headers.lastHeader("content-type");
    if (contentType != null
        && new String(contentType.value(), java.nio.charset.StandardCharsets.UTF_8)
            .toLowerCase(java.util.Locale.ROOT)
            .startsWith("application/cloudevents")) {
      throw new AssertionError(topic + ": a structured-mode content-type next to ce_* headers");
    }
    CloudEvent event;
    try (CloudEventDeserializer deserializer = new CloudEventDeserializer()) {
      deserializer.configure(Map.of(), false);
      event = deserializer.deserialize(topic, headers, value);
    } catch (RuntimeException e) {
      throw new AssertionError("a CloudEventDeserializer cannot read a record of " + topic, e);
    }
    String where = topic + " " + event.getId();
    require(event.getSpecVersion() == SpecVersion.V1, where, "specversion 1.0");
    require(notBlank(event.getId()), where, "ce_id");
    require(event.getSource() != null, where, "ce_source");
    require(notBlank(event.getType()), where, "ce_type");
    byte[] data = event.getData() == null ? null : event.getData().toBytes();
    require(Arrays.equals(data, value), where, "the record value as data");
    authContext(event, where);
    return event;
  }

  /**
   * The CloudEvents Auth Context the bridge records, when the event has one: as a standard consumer
   * reads it ({@link AuthContext#read} over the deserialized event's extensions), an {@code
   * authtype} the bridge writes and claims that are a JSON object of strings.
   */
  public static Optional<AuthContext> authContext(CloudEvent event, String where) {
    Optional<AuthContext> sender;
    try {
      sender = AuthContext.read(event::getExtension);
    } catch (IllegalArgumentException e) {
      throw new AssertionError(where + ": " + e.getMessage(), e);
    }
    sender.ifPresent(
        s ->
            require(
                Set.of(AuthContext.API_KEY, AuthContext.SERVICE_ACCOUNT, AuthContext.SYSTEM)
                    .contains(s.type()),
                where,
                "authtype (" + s.type() + ")"));
    return sender;
  }

  private static boolean notBlank(String value) {
    return value != null && !value.isBlank();
  }

  private static void require(boolean condition, String where, String what) {
    if (!condition) {
      throw new AssertionError(where + ": missing or wrong " + what);
    }
  }
}
