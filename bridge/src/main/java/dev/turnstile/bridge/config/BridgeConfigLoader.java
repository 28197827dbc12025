package dev.turnstile.bridge.config;

import static dev.turnstile.bridge.config.BridgeConfig.*;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;

/**
 * The bridge's one configuration loader: a properties file (optional), then environment variables;
 * the environment wins.
 *
 * <p>Environment rule: only variables starting with {@code TURNSTILE_} count. The rest is matched
 * against the declared keys written in upper case with {@code .} and {@code -} as {@code _} (so
 * {@code TURNSTILE_BRIDGE_HTTP_PORT} sets {@code bridge.http.port} and {@code
 * TURNSTILE_BRIDGE_HTTP_BODY_LIMIT_BYTES} sets {@code bridge.http.body-limit-bytes}); anything else
 * is lower-cased with {@code _} turned into {@code .} (so {@code
 * TURNSTILE_KAFKA_PRODUCER_SASL_JAAS_CONFIG} sets {@code kafka.producer.sasl.jaas.config}).
 *
 * <p>Every value is checked at start-up; a bad one fails with an {@link IllegalArgumentException}
 * naming its key.
 */
public final class BridgeConfigLoader {

  /** Prefix of the environment variables the bridge reads. */
  public static final String ENV_PREFIX = "TURNSTILE_";

  private static final List<String> DECLARED_KEYS =
      List.of(
          KAFKA_BOOTSTRAP_SERVERS,
          TOPIC_PREFIX,
          HTTP_HOST,
          HTTP_PORT,
          HTTP_EVENT_LOOPS,
          HTTP_BODY_LIMIT_BYTES,
          HTTP_BATCH_MAX_EVENTS,
          HTTP_BATCH_BODY_LIMIT_BYTES,
          HTTP_RETRY_AFTER_SECONDS,
          HTTP_HEADER_TIMEOUT_MS,
          HTTP_BODY_TIMEOUT_MS,
          HTTP_IDLE_TIMEOUT_MS,
          HTTP_MAX_CONNECTIONS,
          KAFKA_ACK_TIMEOUT_MS,
          KAFKA_MAX_IN_FLIGHT,
          KAFKA_READINESS_INTERVAL_MS,
          DUPLICATE_CACHE_SIZE,
          DUPLICATE_CACHE_TTL_MS,
          SHUTDOWN_TIMEOUT_MS,
          DEVICE_MIN_OCCURRED_AT,
          DEVICE_MAX_CLOCK_SKEW_MS,
          SERVICEBUS_ENTITIES,
          SERVICEBUS_CONNECTION_STRING,
          SERVICEBUS_NAMESPACE,
          SERVICEBUS_LOCAL_MODE,
          SERVICEBUS_SETTLE_TIMEOUT_MS,
          SERVICEBUS_RESUME_CHECK_INTERVAL_MS);

  private static final String ENTITY_ENV_PREFIX = envName(SERVICEBUS_ENTITY_PREFIX);

  private BridgeConfigLoader() {}

  /** Loads from the file (may be {@code null}) and the process environment. */
  public static BridgeConfig load(Path propertiesFile) {
    return load(propertiesFile, System.getenv());
  }

  /** Loads from the file (may be {@code null}) and the given environment; env wins. */
  public static BridgeConfig load(Path propertiesFile, Map<String, String> environment) {
    Map<String, String> values = new HashMap<>();
    if (propertiesFile != null) {
      values.putAll(readProperties(propertiesFile));
    }
    values.putAll(fromEnvironment(environment));
    return fromMap(values);
  }

  /** The key an environment variable sets, or {@code null} if it is not one of ours. */
  public static String keyOf(String environmentVariable) {
    if (!environmentVariable.startsWith(ENV_PREFIX)) {
      return null;
    }
    String rest = environmentVariable.substring(ENV_PREFIX.length());
    for (String key : DECLARED_KEYS) {
      if (envName(key).equals(rest)) {
        return key;
      }
    }
    if (rest.startsWith(ENTITY_ENV_PREFIX)) {
      // TURNSTILE_BRIDGE_SERVICEBUS_ENTITY_BILLING_MAX_CONCURRENT_CALLS: names have no '_'.
      String entityAndKey = rest.substring(ENTITY_ENV_PREFIX.length());
      int split = entityAndKey.indexOf('_');
      if (split > 0) {
        String suffix = entityAndKey.substring(split + 1);
        for (String entityKey : ENTITY_KEYS) {
          if (envName(entityKey).equals(suffix)) {
            return SERVICEBUS_ENTITY_PREFIX
                + entityAndKey.substring(0, split).toLowerCase(Locale.ROOT)
                + "."
                + entityKey;
          }
        }
      }
    }
    return rest.toLowerCase(Locale.ROOT).replace('_', '.');
  }

  private static String envName(String key) {
    return key.toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_');
  }

  private static Map<String, String> fromEnvironment(Map<String, String> environment) {
    Map<String, String> values = new HashMap<>();
    environment.forEach(
        (name, value) -> {
          String key = keyOf(name);
          if (key != null) {
            values.put(key, value);
          }
        });
    return values;
  }

  private static Map<String, String> readProperties(Path file) {
    Properties properties = new Properties();
    try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      properties.load(reader);
    } catch (IOException e) {
      throw new IllegalArgumentException("cannot read config file " + file + ": " + e, e);
    }
    Map<String, String> values = new HashMap<>();
    properties.stringPropertyNames().forEach(k -> values.put(k, properties.getProperty(k).trim()));
    return values;
  }

  /** Builds and validates a config from flat keys (as in the properties file). */
  public static BridgeConfig fromMap(Map<String, String> values) {
    Values v = new Values(values);
    Map<String, String> common = new HashMap<>();
    Map<String, String> producer = new HashMap<>();
    values.forEach(
        (key, value) -> {
          if (key.startsWith(KAFKA_PRODUCER_PREFIX)) {
            producer.put(key.substring(KAFKA_PRODUCER_PREFIX.length()), value);
          } else if (key.startsWith(KAFKA_PREFIX)) {
            common.put(key.substring(KAFKA_PREFIX.length()), value);
          }
        });
    String bootstrap = v.string(KAFKA_BOOTSTRAP_SERVERS, null);
    if (bootstrap == null || bootstrap.isBlank()) {
      throw new IllegalArgumentException(
          KAFKA_BOOTSTRAP_SERVERS
              + " is required (or env "
              + ENV_PREFIX
              + envName(KAFKA_BOOTSTRAP_SERVERS)
              + ")");
    }
    BridgeConfig config =
        new BridgeConfig(
            v.string(TOPIC_PREFIX, ""),
            v.string(HTTP_HOST, "0.0.0.0"),
            (int) v.number(HTTP_PORT, 8080, 0, 65_535),
            (int) v.number(HTTP_EVENT_LOOPS, Runtime.getRuntime().availableProcessors(), 1, 1_024),
            v.number(HTTP_BODY_LIMIT_BYTES, 65_536, 1, Integer.MAX_VALUE),
            (int) v.number(HTTP_BATCH_MAX_EVENTS, 1_000, 1, 1_000_000),
            v.number(HTTP_BATCH_BODY_LIMIT_BYTES, 1_048_576, 1, Integer.MAX_VALUE),
            (int) v.number(HTTP_RETRY_AFTER_SECONDS, 5, 0, 86_400),
            new HttpConnectionLimits(
                Duration.ofMillis(v.number(HTTP_HEADER_TIMEOUT_MS, 10_000, 100, 3_600_000)),
                Duration.ofMillis(v.number(HTTP_BODY_TIMEOUT_MS, 30_000, 100, 3_600_000)),
                Duration.ofMillis(v.number(HTTP_IDLE_TIMEOUT_MS, 60_000, 200, 3_600_000)),
                (int) v.number(HTTP_MAX_CONNECTIONS, 4_096, 1, 1_000_000)),
            Duration.ofMillis(v.number(KAFKA_ACK_TIMEOUT_MS, 10_000, 100, 3_600_000)),
            (int) v.number(KAFKA_MAX_IN_FLIGHT, 10_000, 1, 1_000_000),
            Duration.ofMillis(v.number(KAFKA_READINESS_INTERVAL_MS, 5_000, 100, 3_600_000)),
            v.number(DUPLICATE_CACHE_SIZE, 100_000, 0, 100_000_000),
            Duration.ofMillis(v.number(DUPLICATE_CACHE_TTL_MS, 600_000, 1, 7L * 24 * 3_600_000)),
            Duration.ofMillis(v.number(SHUTDOWN_TIMEOUT_MS, 20_000, 0, 600_000)),
            v.instant(DEVICE_MIN_OCCURRED_AT, Instant.parse("2000-01-01T00:00:00Z")),
            Duration.ofMillis(
                v.number(DEVICE_MAX_CLOCK_SKEW_MS, 86_400_000, 0, 10L * 366 * 86_400_000)),
            common,
            producer,
            ServiceBusConfigReader.read(values, v.string(TOPIC_PREFIX, "")));
    if (config.connectionLimits().idleTimeout().compareTo(config.ackTimeout()) <= 0) {
      // A request waiting for Kafka's ack sends nothing meanwhile: a shorter idle timeout would
      // cut it off before its answer.
      throw new IllegalArgumentException(
          HTTP_IDLE_TIMEOUT_MS
              + " ("
              + config.connectionLimits().idleTimeout().toMillis()
              + ") must exceed "
              + KAFKA_ACK_TIMEOUT_MS
              + " ("
              + config.ackTimeout().toMillis()
              + ")");
    }
    if (config.batchMaxEvents() > config.maxInFlight()) {
      // A batch's writes go in flight together; a larger batch could never be taken.
      throw new IllegalArgumentException(
          HTTP_BATCH_MAX_EVENTS
              + " ("
              + config.batchMaxEvents()
              + ") must not exceed "
              + KAFKA_MAX_IN_FLIGHT
              + " ("
              + config.maxInFlight()
              + ")");
    }
    if (config.serviceBus() != null
        && config.shutdownTimeout().compareTo(config.serviceBus().settleTimeout()) < 0) {
      // A shorter drain cuts off callbacks still waiting for their ack: their messages are
      // redelivered, and the Service Bus clients close under running handlers.
      throw new IllegalArgumentException(
          SHUTDOWN_TIMEOUT_MS
              + " ("
              + config.shutdownTimeout().toMillis()
              + ") must be at least "
              + SERVICEBUS_SETTLE_TIMEOUT_MS
              + " ("
              + config.serviceBus().settleTimeout().toMillis()
              + ") so that shutdown can drain message callbacks");
    }
    return config;
  }

  record Values(Map<String, String> values) {

    String string(String key, String fallback) {
      String value = values.get(key);
      return value == null ? fallback : value.trim();
    }

    boolean bool(String key, boolean fallback) {
      String value = values.get(key);
      if (value == null || value.isBlank()) {
        return fallback;
      }
      return switch (value.trim().toLowerCase(Locale.ROOT)) {
        case "true" -> true;
        case "false" -> false;
        default ->
            throw new IllegalArgumentException(key + " must be true or false, got '" + value + "'");
      };
    }

    Instant instant(String key, Instant fallback) {
      String value = values.get(key);
      if (value == null || value.isBlank()) {
        return fallback;
      }
      try {
        return OffsetDateTime.parse(value.trim()).toInstant();
      } catch (DateTimeParseException e) {
        throw new IllegalArgumentException(
            key + " must be an RFC 3339 date-time with an offset, got '" + value + "'", e);
      }
    }

    long number(String key, long fallback, long min, long max) {
      String value = values.get(key);
      if (value == null || value.isBlank()) {
        return fallback;
      }
      long parsed;
      try {
        parsed = Long.parseLong(value.trim());
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(key + " must be a whole number, got '" + value + "'", e);
      }
      if (parsed < min || parsed > max) {
        throw new IllegalArgumentException(
            key + " must be between " + min + " and " + max + ", got " + parsed);
      }
      return parsed;
    }
  }
}
