package dev.turnstile.bridge.adapter.http;

import java.util.Locale;

/**
 * Whether a request's {@code Content-Type} is JSON the bridge can read. Type, subtype and parameter
 * names are case-insensitive (RFC 9110 §8.3.1); parameters may follow; the only charset read is
 * UTF-8 (RFC 8259 §8.1), any other is refused rather than misread.
 */
final class JsonMediaType {

  private JsonMediaType() {}

  /** {@code null} when acceptable; otherwise the detail of a 415. */
  static String problem(String contentType) {
    if (contentType == null || contentType.isBlank()) {
      return "send Content-Type: application/json";
    }
    String[] parts = contentType.split(";");
    String mediaType = parts[0].trim().toLowerCase(Locale.ROOT);
    if (!mediaType.equals("application/json")) {
      return "send Content-Type: application/json, not " + parts[0].trim();
    }
    for (int i = 1; i < parts.length; i++) {
      String parameter = parts[i].trim();
      int equals = parameter.indexOf('=');
      if (equals < 0) {
        continue;
      }
      String name = parameter.substring(0, equals).trim().toLowerCase(Locale.ROOT);
      String value = unquote(parameter.substring(equals + 1).trim());
      if (name.equals("charset") && !value.equalsIgnoreCase("utf-8")) {
        return "charset " + value + " is not supported: send the body as UTF-8 (charset=utf-8)";
      }
    }
    return null;
  }

  private static String unquote(String value) {
    return value.length() >= 2 && value.startsWith("\"") && value.endsWith("\"")
        ? value.substring(1, value.length() - 1)
        : value;
  }
}
