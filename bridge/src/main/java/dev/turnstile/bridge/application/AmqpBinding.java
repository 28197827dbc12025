package dev.turnstile.bridge.application;

import io.cloudevents.core.builder.CloudEventBuilder;
import java.net.URI;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * The CloudEvents AMQP protocol binding's binary content mode, as Service Bus application
 * properties: attribute {@code id} is property {@code cloudEvents:id} (or {@code cloudEvents_id},
 * the prefix for JMS-style names), and so on; the message's content type is {@code
 * datacontenttype}.
 */
final class AmqpBinding {

  /** Prefixes of the binding's application properties, {@code cloudEvents:} first. */
  static final List<String> PREFIXES = List.of("cloudEvents:", "cloudEvents_");

  private AmqpBinding() {}

  /**
   * The AMQP binding's attributes by name, without prefix; null when one is set under both
   * prefixes, which would leave its value ambiguous.
   */
  static Map<String, Object> attributes(Map<String, Object> properties) {
    Map<String, Object> attributes = new LinkedHashMap<>();
    for (Map.Entry<String, Object> property : properties.entrySet()) {
      String name = attributeName(property.getKey());
      if (name != null && property.getValue() != null) {
        if (attributes.put(name, property.getValue()) != null) {
          return null;
        }
      }
    }
    return attributes;
  }

  static String attributeName(String property) {
    for (String prefix : PREFIXES) {
      if (property.startsWith(prefix)) {
        return property.substring(prefix.length());
      }
    }
    return null;
  }

  /**
   * Application property values arrive typed (AMQP string, timestamp, int, boolean, binary, ...);
   * the SDK's writer checks each against the attribute's CloudEvents type.
   */
  static void setAttribute(CloudEventBuilder builder, String name, Object value) {
    if (value instanceof OffsetDateTime time) {
      builder.withContextAttribute(name, time);
    } else if (value instanceof Date date) {
      builder.withContextAttribute(
          name, OffsetDateTime.ofInstant(date.toInstant(), ZoneOffset.UTC));
    } else if (value instanceof Integer
        || value instanceof Short
        || value instanceof Byte
        || (value instanceof Long l && l == l.intValue())) {
      builder.withContextAttribute(name, (Integer) ((Number) value).intValue());
    } else if (value instanceof Boolean bool) {
      builder.withContextAttribute(name, bool);
    } else if (value instanceof URI uri) {
      builder.withContextAttribute(name, uri);
    } else if (value instanceof byte[] bytes) {
      builder.withContextAttribute(name, bytes);
    } else if (value instanceof String || value instanceof UUID) {
      builder.withContextAttribute(name, value.toString());
    } else {
      throw new IllegalArgumentException(
          name + " has AMQP type " + value.getClass().getSimpleName() + ", not a CloudEvents type");
    }
  }
}
