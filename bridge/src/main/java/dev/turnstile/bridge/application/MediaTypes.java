package dev.turnstile.bridge.application;

import java.util.Locale;

/**
 * Reads a Service Bus message's content type (RFC 9110 §8.3: type and subtype are case-insensitive,
 * parameters may follow a {@code ;}).
 */
final class MediaTypes {

  /** CloudEvents JSON event format, one event in structured content mode. */
  static final String CLOUD_EVENTS_JSON = "application/cloudevents+json";

  private static final String CLOUD_EVENTS_FAMILY = "application/cloudevents";

  private MediaTypes() {}

  /** The media type without parameters, trimmed and lower-cased; null when none is set. */
  static String of(String contentType) {
    if (contentType == null) {
      return null;
    }
    int semicolon = contentType.indexOf(';');
    String type = (semicolon < 0 ? contentType : contentType.substring(0, semicolon)).trim();
    return type.isEmpty() ? null : type.toLowerCase(Locale.ROOT);
  }

  /** {@code application/json} or any {@code +json} structured syntax suffix (RFC 6839). */
  static boolean isJson(String mediaType) {
    return mediaType != null
        && (mediaType.equals("application/json") || mediaType.endsWith("+json"));
  }

  /**
   * Any CloudEvents structured or batched format. A Kafka record whose {@code content-type} starts
   * with {@code application/cloudevents} is read in structured mode by the standard deserializer,
   * so such a content type must never be written next to {@code ce_*} headers.
   */
  static boolean isCloudEvents(String mediaType) {
    return mediaType != null && mediaType.startsWith(CLOUD_EVENTS_FAMILY);
  }
}
