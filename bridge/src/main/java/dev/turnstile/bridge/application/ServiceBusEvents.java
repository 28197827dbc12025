package dev.turnstile.bridge.application;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.turnstile.bridge.port.in.RelayServiceBusMessageUseCase.DeadLetter;
import dev.turnstile.bridge.port.in.RelayServiceBusMessageUseCase.DeadLetterReasons;
import dev.turnstile.bridge.port.in.RelayServiceBusMessageUseCase.ReceivedMessage;
import dev.turnstile.schemas.AuthContext;
import dev.turnstile.schemas.CloudEventHeaders;
import dev.turnstile.schemas.Json;
import dev.turnstile.schemas.ServiceBusHeaders;
import dev.turnstile.schemas.StrictJson;
import dev.turnstile.schemas.StrictJson.MalformedJsonException;
import io.cloudevents.CloudEvent;
import io.cloudevents.CloudEventData;
import io.cloudevents.SpecVersion;
import io.cloudevents.core.builder.CloudEventBuilder;
import io.cloudevents.jackson.JsonCloudEventData;
import io.cloudevents.jackson.JsonFormat;
import java.net.URI;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * How a Service Bus message becomes the one CloudEvent the bridge writes to Kafka in binary content
 * mode ({@code ce_*} headers, data as the value), in one of three ways:
 *
 * <ul>
 *   <li><b>structured CloudEvent</b>: content type {@code application/cloudevents+json} (as Event
 *       Grid delivers to Service Bus). The body is read with {@link StrictJson#senders()}, then by
 *       the CloudEvents SDK's JSON format; the event keeps its own attributes and extensions, its
 *       {@code data} becomes the value ({@code data} as compact JSON with exact numbers, {@code
 *       data_base64} as its bytes). Other {@code application/cloudevents*} types (batches, other
 *       formats) are refused: the standard Kafka deserializer could not read them either.
 *   <li><b>binary CloudEvent</b> (CloudEvents AMQP protocol binding): application property {@code
 *       cloudEvents:specversion} (or {@code cloudEvents_specversion}) is set; the attributes are
 *       the properties with that prefix, {@code datacontenttype} is the message's content type, the
 *       body is the data.
 *   <li><b>plain message</b>: {@code ce_id} the message id (or {@code <entityPath>/<sequence>}),
 *       {@code ce_source} {@code /servicebus/<namespace>/<entityPath>}, {@code ce_type} {@link
 *       ServiceBusHeaders#MESSAGE_TYPE}, {@code ce_time} the enqueued time, {@code ce_subject} and
 *       {@code content-type} from the message; the body unchanged.
 * </ul>
 *
 * <p>All three carry the Service Bus metadata extensions ({@code ce_sbsequencenumber}, {@code
 * ce_sbenqueuedtime}, {@code ce_sbdeliverycount}, {@code ce_sbentity}, and {@code
 * ce_sbcorrelationid} / {@code ce_sbsessionid} when set) and each application property that is not
 * a CloudEvents attribute as {@code sb-prop-<name>}. A CloudEvent may not bring an extension of
 * those names itself. Data whose content type is JSON ({@code application/json}, any {@code +json})
 * is read with {@link StrictJson#senders()}, and so is any data the entity needs as JSON (a schema,
 * a pointer key); what it refuses is dead-lettered, never relayed.
 *
 * <p>All three also carry the CloudEvents Auth Context extension ({@link AuthContext#serviceBus}:
 * the entity the message came from); a CloudEvent that brings {@code authtype}, {@code authid} or
 * {@code authclaims} itself is dead-lettered ({@code InvalidCloudEvent}): what a sender writes
 * there could name anyone.
 */
final class ServiceBusEvents {

  /** Longest attribute value of a CloudEvent arriving on Service Bus, in characters. */
  static final int MAX_ATTRIBUTE_LENGTH = 4096;

  private static final Set<String> METADATA =
      Set.of(
          ServiceBusHeaders.SEQUENCE_NUMBER,
          ServiceBusHeaders.ENQUEUED_TIME,
          ServiceBusHeaders.DELIVERY_COUNT,
          ServiceBusHeaders.ENTITY,
          ServiceBusHeaders.CORRELATION_ID,
          ServiceBusHeaders.SESSION_ID);

  /** Turnstile's exact-number mapping plus the SDK's CloudEvent (de)serializer. */
  private static final ObjectMapper CLOUD_EVENTS =
      Json.mapper().copy().registerModule(JsonFormat.getCloudEventJacksonModule());

  private final String namespace;
  private final Map<String, String> credential;

  /**
   * @param namespace the namespace as {@code ce_source} of plain messages names it
   * @param credential how the bridge reads the entities, for the Auth Context ({@link
   *     AuthContext#serviceBus})
   */
  ServiceBusEvents(String namespace, Map<String, String> credential) {
    this.namespace = namespace;
    this.credential = Map.copyOf(credential);
  }

  /** The event to write, or the dead-letter that says why there is none. */
  sealed interface Mapping permits Mapped, Refused {}

  /**
   * @param event the CloudEvent, data included
   * @param headers extra headers ({@code sb-prop-*})
   * @param json the data read by {@link StrictJson#senders()}, or null when it was not read
   */
  record Mapped(CloudEvent event, Map<String, String> headers, JsonNode json) implements Mapping {}

  record Refused(DeadLetter deadLetter) implements Mapping {}

  /**
   * @param eventId the plain message's event id
   * @param needsJson read the data as JSON whatever its content type (a schema or a pointer key)
   */
  Mapping map(ReceivedMessage message, String eventId, boolean needsJson) {
    String mediaType = MediaTypes.of(message.contentType());
    if (MediaTypes.isCloudEvents(mediaType)) {
      return MediaTypes.CLOUD_EVENTS_JSON.equals(mediaType)
          ? structured(message, needsJson)
          : refused(
              DeadLetterReasons.UNSUPPORTED_CLOUD_EVENTS_FORMAT,
              "content type "
                  + message.contentType()
                  + ": only one event in structured JSON ("
                  + MediaTypes.CLOUD_EVENTS_JSON
                  + ") or the AMQP binary mode is read");
    }
    Map<String, Object> attributes = AmqpBinding.attributes(message.applicationProperties());
    if (attributes == null) {
      return invalid("an attribute is set under both prefixes " + AmqpBinding.PREFIXES);
    }
    return attributes.containsKey("specversion")
        ? binary(message, attributes, needsJson)
        : plain(message, eventId, needsJson);
  }

  private Mapping plain(ReceivedMessage message, String eventId, boolean needsJson) {
    JsonRead data = readJson(message.body(), message.contentType(), needsJson);
    if (data.refused() != null) {
      return data.refused();
    }
    CloudEventBuilder event =
        CloudEventBuilder.v1()
            .withId(eventId)
            .withSource(URI.create(ServiceBusHeaders.source(namespace, message.entityPath())))
            .withType(ServiceBusHeaders.MESSAGE_TYPE)
            .withTime(message.enqueuedTime())
            .withData(message.body());
    if (message.subject() != null) {
      event.withSubject(message.subject());
    }
    if (message.contentType() != null) {
      event.withDataContentType(message.contentType());
    }
    return mapped(event, message, false, data.json());
  }

  private Mapping structured(ReceivedMessage message, boolean needsJson) {
    JsonNode envelope;
    try {
      envelope = StrictJson.senders().readTree(message.body());
    } catch (MalformedJsonException e) {
      return refusedJson(e, "the structured CloudEvent");
    }
    JsonNode specVersion = envelope.path("specversion");
    if (!envelope.isObject() || !"1.0".equals(specVersion.textValue())) {
      return invalid("a structured CloudEvent is a JSON object with \"specversion\": \"1.0\"");
    }
    CloudEvent parsed;
    try {
      parsed = CLOUD_EVENTS.treeToValue(envelope, CloudEvent.class);
    } catch (JsonProcessingException e) {
      return invalid(e.getOriginalMessage());
    } catch (RuntimeException e) {
      return invalid(e.getMessage());
    }
    CloudEventBuilder event = CloudEventBuilder.v1(parsed);
    JsonNode json;
    CloudEventData data = parsed.getData();
    if (data instanceof JsonCloudEventData node) {
      json = node.getNode();
      event.withData(writeJson(json));
    } else if (data == null && !needsJson) {
      json = null;
    } else {
      byte[] bytes = data == null ? new byte[0] : data.toBytes();
      JsonRead read = readJson(bytes, parsed.getDataContentType(), needsJson);
      if (read.refused() != null) {
        return read.refused();
      }
      json = read.json();
      event.withData(bytes);
    }
    return attributesOf(parsed, event, message, json);
  }

  private Mapping binary(
      ReceivedMessage message, Map<String, Object> attributes, boolean needsJson) {
    Object specVersion = attributes.get("specversion");
    if (!SpecVersion.V1.toString().equals(String.valueOf(specVersion))) {
      return invalid("cloudEvents:specversion must be \"1.0\", not " + specVersion);
    }
    CloudEventBuilder builder = CloudEventBuilder.v1();
    CloudEvent parsed;
    try {
      attributes.forEach(
          (name, value) -> {
            if (!name.equals("specversion")) {
              AmqpBinding.setAttribute(builder, name, value);
            }
          });
      if (message.contentType() != null) {
        builder.withDataContentType(message.contentType());
      }
      parsed = builder.build();
    } catch (RuntimeException e) {
      return invalid("cloudEvents: application properties: " + e.getMessage());
    }
    JsonRead data = readJson(message.body(), parsed.getDataContentType(), needsJson);
    if (data.refused() != null) {
      return data.refused();
    }
    return attributesOf(
        parsed, CloudEventBuilder.v1(parsed).withData(message.body()), message, data.json());
  }

  /** Checks a CloudEvent's own attributes, then adds the Service Bus metadata. */
  private Mapping attributesOf(
      CloudEvent parsed, CloudEventBuilder event, ReceivedMessage message, JsonNode json) {
    if (parsed.getId().isEmpty() || parsed.getType().isEmpty()) {
      return invalid("id and type must be non-empty strings");
    }
    if (parsed.getSource().toString().isEmpty()) {
      return invalid("source must be a non-empty URI-reference");
    }
    for (String name : parsed.getAttributeNames()) {
      Object value = parsed.getAttribute(name);
      if (value != null && String.valueOf(value).length() > MAX_ATTRIBUTE_LENGTH) {
        return invalid(name + " is longer than " + MAX_ATTRIBUTE_LENGTH + " characters");
      }
    }
    for (String name : parsed.getExtensionNames()) {
      if (name.isEmpty() || METADATA.contains(CloudEventHeaders.PREFIX + name)) {
        return invalid(
            "extension \""
                + name
                + "\" is not allowed: the sb* names carry the Service Bus metadata");
      }
      if (AuthContexts.ATTRIBUTES.contains(name)) {
        return invalid(
            "extension \""
                + name
                + "\" is not allowed: the bridge records who sent an event (Auth Context)");
      }
      if (String.valueOf(parsed.getExtension(name)).length() > MAX_ATTRIBUTE_LENGTH) {
        return invalid(name + " is longer than " + MAX_ATTRIBUTE_LENGTH + " characters");
      }
    }
    return mapped(event, message, true, json);
  }

  private Mapping mapped(
      CloudEventBuilder event, ReceivedMessage message, boolean cloudEvent, JsonNode json) {
    AuthContexts.record(event, AuthContext.serviceBus(namespace, message.entityPath(), credential));
    event
        .withExtension(extension(ServiceBusHeaders.SEQUENCE_NUMBER), message.sequenceNumber())
        .withExtension(
            extension(ServiceBusHeaders.ENQUEUED_TIME), message.enqueuedTime().toString())
        // The SDK reports the raw AMQP header (0 first); the contract counts from 1.
        .withExtension(extension(ServiceBusHeaders.DELIVERY_COUNT), message.deliveryCount() + 1)
        .withExtension(extension(ServiceBusHeaders.ENTITY), message.entityPath());
    if (message.correlationId() != null) {
      event.withExtension(extension(ServiceBusHeaders.CORRELATION_ID), message.correlationId());
    }
    if (message.sessionId() != null) {
      event.withExtension(extension(ServiceBusHeaders.SESSION_ID), message.sessionId());
    }
    Map<String, String> headers = new LinkedHashMap<>();
    message
        .applicationProperties()
        .forEach(
            (name, value) -> {
              if (value != null && !(cloudEvent && AmqpBinding.attributeName(name) != null)) {
                headers.put(ServiceBusHeaders.property(name), String.valueOf(value));
              }
            });
    return new Mapped(event.build(), headers, json);
  }

  /** The data read as JSON when its content type says so or the entity needs it. */
  private record JsonRead(JsonNode json, Refused refused) {}

  private static JsonRead readJson(byte[] data, String contentType, boolean needsJson) {
    if (!needsJson && !MediaTypes.isJson(MediaTypes.of(contentType))) {
      return new JsonRead(null, null);
    }
    try {
      return new JsonRead(StrictJson.senders().readTree(data), null);
    } catch (MalformedJsonException e) {
      return new JsonRead(null, refusedJson(e, "the body"));
    }
  }

  private static Refused refusedJson(MalformedJsonException e, String what) {
    return e.limit().isPresent()
        ? refused(
            DeadLetterReasons.JSON_LIMIT_EXCEEDED,
            what
                + " passes limit "
                + e.limit().get().keyword()
                + e.pointer().map(p -> " at \"" + p + "\"").orElse("")
                + ": "
                + e.getMessage())
        : refused(DeadLetterReasons.MALFORMED_JSON, what + " is not I-JSON: " + e.getMessage());
  }

  private static byte[] writeJson(JsonNode json) {
    try {
      return Json.mapper().writeValueAsBytes(json);
    } catch (JsonProcessingException e) {
      // A tree read within StrictJson's bounds always writes; this would be a bug of ours.
      throw new IllegalStateException("cannot write the CloudEvent's data", e);
    }
  }

  private static Refused invalid(String description) {
    return refused(DeadLetterReasons.INVALID_CLOUD_EVENT, description);
  }

  private static Refused refused(String reason, String description) {
    return new Refused(new DeadLetter(reason, description == null ? reason : description));
  }

  private static String extension(String header) {
    return header.substring(CloudEventHeaders.PREFIX.length());
  }
}
