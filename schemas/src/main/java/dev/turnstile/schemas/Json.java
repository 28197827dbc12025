package dev.turnstile.schemas;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.cfg.JsonNodeFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;

/**
 * The one JSON mapping of Turnstile's contracts: RFC 3339 timestamps with their offsets kept, no
 * nulls written, and numbers with a fraction or exponent read as {@link java.math.BigDecimal} with
 * their trailing zeros, so amounts stay exact ({@code 7.50} stays {@code 7.50}, {@code 1e400} does
 * not become Infinity) on their way through every stage.
 */
public final class Json {

  private static final ObjectMapper MAPPER = contractMapping(new JsonFactory()).build();

  /**
   * The mapping every Turnstile mapper shares; {@link StrictJson} adds bounds for what senders
   * send. Reading refuses duplicate member names and content after the value, whoever wrote it.
   */
  static JsonMapper.Builder contractMapping(JsonFactory factory) {
    return JsonMapper.builder(factory)
        .addModule(new JavaTimeModule())
        .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
        .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
        .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
        .disable(DeserializationFeature.ADJUST_DATES_TO_CONTEXT_TIME_ZONE)
        .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
        .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
        .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
        .configure(JsonNodeFeature.STRIP_TRAILING_BIGDECIMAL_ZEROES, false)
        .serializationInclusion(JsonInclude.Include.NON_NULL);
  }

  /** A shared, thread-safe mapper; do not reconfigure it. */
  public static ObjectMapper mapper() {
    return MAPPER;
  }

  private Json() {}
}
