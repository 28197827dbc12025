package dev.turnstile.bridge.adapter.http;

import com.fasterxml.jackson.databind.JsonNode;
import dev.turnstile.schemas.Json;
import dev.turnstile.schemas.StrictJson;
import dev.turnstile.schemas.StrictJson.MalformedJsonException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.Map;

/**
 * Reads a request body with the one strict reader Turnstile has for what senders send ({@link
 * StrictJson}: no duplicate keys, nothing after the value, bounded depth and sizes, exact numbers),
 * so HTTP and Service Bus give the same bytes the same verdict.
 */
final class RequestJson {

  private RequestJson() {}

  /** Parses a body (UTF-8) into a tree whose numbers are exact. */
  static JsonNode read(byte[] body) throws MalformedJsonException {
    return StrictJson.senders().readTree(body);
  }

  /**
   * The tree as the values the Vert.x schema validator walks (objects, arrays, strings, exact
   * numbers, booleans, null), converted without parsing the text again.
   */
  static Object toVertx(JsonNode node) {
    Object value = Json.mapper().convertValue(node, Object.class);
    if (value instanceof Map<?, ?> map) {
      @SuppressWarnings("unchecked")
      Map<String, Object> object = (Map<String, Object>) map;
      return new JsonObject(object);
    }
    if (value instanceof List<?> list) {
      return new JsonArray(List.copyOf(list));
    }
    return value;
  }
}
