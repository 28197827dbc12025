package dev.turnstile.bridge.adapter.jsonschema;

import com.fasterxml.jackson.databind.JsonNode;
import dev.turnstile.schemas.Json;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.Map;

/**
 * A tree read by {@link dev.turnstile.schemas.StrictJson} as the values the Vert.x schema validator
 * walks (objects, arrays, strings, exact numbers, booleans, null), converted without parsing text
 * again: the validator never sees what a lenient parser would have made of the bytes.
 */
public final class VertxJson {

  private VertxJson() {}

  public static Object of(JsonNode node) {
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
