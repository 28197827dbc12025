package dev.turnstile.bridge.adapter.http;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.io.JsonEOFException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.JsonNodeFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The bridge's strict reading of a request body, parsed once: a duplicated key is an error (RFC
 * 8259 leaves it undefined, so "last wins" would silently pick one), content after the value is an
 * error, and numbers stay exactly as sent ({@code 1e400} and {@code 7.50} are not rounded to a
 * double). The shared {@link dev.turnstile.schemas.Json} mapper is left as it is.
 */
final class RequestJson {

  private static final ObjectMapper STRICT =
      JsonMapper.builder()
          .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
          .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
          .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
          .disable(JsonNodeFeature.STRIP_TRAILING_BIGDECIMAL_ZEROES)
          .build();

  private static final Pattern QUOTED = Pattern.compile("'([^']*)'");

  private RequestJson() {}

  /** A body that is not JSON; {@link #getMessage()} says why and where, in the client's terms. */
  static final class MalformedJsonException extends Exception {
    MalformedJsonException(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /** Parses a body (UTF-8) into a tree whose numbers are exact. */
  static JsonNode read(byte[] body) throws MalformedJsonException {
    try {
      return STRICT.readTree(body);
    } catch (JsonProcessingException e) {
      throw new MalformedJsonException(describe(e), e);
    } catch (IOException e) {
      throw new MalformedJsonException("the body could not be read", e);
    }
  }

  /**
   * The tree as the values the Vert.x schema validator walks (objects, arrays, strings, exact
   * numbers, booleans, null), converted without parsing the text again.
   */
  static Object toVertx(JsonNode node) {
    Object value = STRICT.convertValue(node, Object.class);
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

  /** A short reason and its place, without the parser's internals (class names, source refs). */
  static String describe(JsonProcessingException e) {
    String original = e.getOriginalMessage() == null ? "" : e.getOriginalMessage();
    String reason;
    if (e instanceof JsonEOFException || original.startsWith("Unexpected end-of-input")) {
      reason = "unexpected end of input";
    } else if (original.startsWith("Duplicate field")) {
      reason = "duplicate key \"" + quoted(original) + "\"";
    } else if (original.startsWith("Trailing token")) {
      reason = "unexpected content after the JSON value";
    } else if (original.startsWith("Unexpected character")) {
      reason = "unexpected character '" + quoted(original) + "'";
    } else if (original.startsWith("Unrecognized token")) {
      reason = "unrecognized token '" + quoted(original) + "'";
    } else if (original.contains("UTF-8") || original.contains("UTF8")) {
      reason = "invalid UTF-8";
    } else if (original.startsWith("Illegal unquoted character")) {
      reason = "control character in a string must be escaped";
    } else if (original.contains("was expecting double-quote")) {
      reason = "a key must be a string in double quotes";
    } else {
      reason = "not valid JSON";
    }
    JsonLocation at = e.getLocation();
    if (at == null || at.getLineNr() < 1) {
      return reason;
    }
    return reason + " at line " + at.getLineNr() + ", column " + at.getColumnNr();
  }

  private static String quoted(String message) {
    Matcher matcher = QUOTED.matcher(message);
    return matcher.find() ? matcher.group(1) : "?";
  }
}
