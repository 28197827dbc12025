package dev.turnstile.bridge.config;

import static dev.turnstile.bridge.config.BridgeConfig.*;

import dev.turnstile.runtime.config.ConfigModel;
import dev.turnstile.runtime.config.InvalidConfigurationException;
import dev.turnstile.runtime.config.Settings;
import java.net.URI;
import java.nio.file.Path;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Map;

/**
 * The bridge's one configuration loader: a properties file (optional), then {@code TURNSTILE_*}
 * environment variables, which win; every key checked by {@link BridgeConfigModel#MODEL} (see
 * {@link ConfigModel} for the environment rule). Problems are reported all at once with an {@link
 * InvalidConfigurationException} naming each key.
 */
public final class BridgeConfigLoader {

  /** Prefix of the environment variables the bridge reads. */
  public static final String ENV_PREFIX = ConfigModel.ENV_PREFIX;

  private BridgeConfigLoader() {}

  /** Loads from the file (may be {@code null}) and the process environment. */
  public static BridgeConfig load(Path propertiesFile) {
    return load(propertiesFile, System.getenv());
  }

  /** Loads from the file (may be {@code null}) and the given environment; env wins. */
  public static BridgeConfig load(Path propertiesFile, Map<String, String> environment) {
    return from(BridgeConfigModel.MODEL.load(propertiesFile, environment));
  }

  /** The key an environment variable sets, or {@code null} if it sets none. */
  public static String keyOf(String environmentVariable) {
    return BridgeConfigModel.MODEL.keyOf(environmentVariable);
  }

  /** Builds and validates a config from flat keys (as in the properties file). */
  public static BridgeConfig fromMap(Map<String, String> values) {
    return from(BridgeConfigModel.MODEL.parse(values));
  }

  /** The typed configuration; checks the rules that tie keys together. */
  public static BridgeConfig from(Settings s) {
    BridgeConfig config =
        new BridgeConfig(
            s.string(TOPIC_PREFIX),
            s.string(HTTP_HOST),
            s.integer(HTTP_PORT),
            eventLoops(s.integer(HTTP_EVENT_LOOPS)),
            s.longValue(HTTP_BODY_LIMIT_BYTES),
            s.integer(HTTP_BATCH_MAX_EVENTS),
            s.longValue(HTTP_BATCH_BODY_LIMIT_BYTES),
            s.integer(HTTP_RETRY_AFTER_SECONDS),
            new HttpConnectionLimits(
                s.millis(HTTP_HEADER_TIMEOUT_MS),
                s.millis(HTTP_BODY_TIMEOUT_MS),
                s.millis(HTTP_IDLE_TIMEOUT_MS),
                s.integer(HTTP_MAX_CONNECTIONS)),
            BridgeConfigModel.names(s.string(HTTP_TRUSTED_PROXIES)),
            s.millis(KAFKA_ACK_TIMEOUT_MS),
            s.integer(KAFKA_MAX_IN_FLIGHT),
            s.millis(KAFKA_READINESS_INTERVAL_MS),
            s.longValue(DUPLICATE_CACHE_SIZE),
            s.millis(DUPLICATE_CACHE_TTL_MS),
            s.millis(SHUTDOWN_TIMEOUT_MS),
            instant(s.string(DEVICE_MIN_OCCURRED_AT)),
            s.millis(DEVICE_MAX_CLOCK_SKEW_MS),
            deviceAuth(s),
            new RateLimit(s.integer(RATE_LIMIT_REQUESTS_PER_SECOND), s.integer(RATE_LIMIT_BURST)),
            httpTls(s),
            s.passThrough(KAFKA_PREFIX),
            s.passThrough(KAFKA_PRODUCER_PREFIX),
            ServiceBusConfigReader.read(s, s.string(TOPIC_PREFIX)));
    if (config.connectionLimits().idleTimeout().compareTo(config.ackTimeout()) <= 0) {
      // A request waiting for Kafka's ack sends nothing meanwhile: a shorter idle timeout would
      // cut it off before its answer.
      throw InvalidConfigurationException.of(
          HTTP_IDLE_TIMEOUT_MS,
          config.connectionLimits().idleTimeout().toMillis()
              + " must exceed "
              + KAFKA_ACK_TIMEOUT_MS
              + " ("
              + config.ackTimeout().toMillis()
              + ")");
    }
    if (config.batchMaxEvents() > config.maxInFlight()) {
      // A batch's writes go in flight together; a larger batch could never be taken.
      throw InvalidConfigurationException.of(
          HTTP_BATCH_MAX_EVENTS,
          config.batchMaxEvents()
              + " must not exceed "
              + KAFKA_MAX_IN_FLIGHT
              + " ("
              + config.maxInFlight()
              + ")");
    }
    if (config.serviceBus() != null
        && config.shutdownTimeout().compareTo(config.serviceBus().settleTimeout()) < 0) {
      // A shorter drain cuts off callbacks still waiting for their ack: their messages are
      // redelivered, and the Service Bus clients close under running handlers.
      throw InvalidConfigurationException.of(
          SHUTDOWN_TIMEOUT_MS,
          config.shutdownTimeout().toMillis()
              + " must be at least "
              + SERVICEBUS_SETTLE_TIMEOUT_MS
              + " ("
              + config.serviceBus().settleTimeout().toMillis()
              + ") so that shutdown can drain message callbacks");
    }
    return config;
  }

  private static DeviceAuth deviceAuth(Settings s) {
    boolean enabled = s.bool(AUTH_ENABLED);
    String file = s.string(AUTH_CREDENTIALS_FILE);
    boolean hasFile = file != null && !file.isBlank();
    DeviceJwt jwt = enabled ? deviceJwt(s) : null;
    if (enabled && !hasFile && jwt == null) {
      throw InvalidConfigurationException.of(
          AUTH_CREDENTIALS_FILE,
          "must be set while "
              + AUTH_ENABLED
              + " is true (the default), unless "
              + AUTH_JWT_JWKS_URI
              + " is: the file of device credentials (`turnstile device-token` makes them); set "
              + AUTH_ENABLED
              + "=false to accept unauthenticated device requests");
    }
    return new DeviceAuth(
        enabled,
        enabled && hasFile ? Path.of(file.strip()) : null,
        s.millis(AUTH_RELOAD_INTERVAL_MS),
        jwt,
        new FailureLimit(
            s.integer(AUTH_FAILURE_LIMIT_PER_MINUTE), s.integer(AUTH_FAILURE_LIMIT_BURST)));
  }

  /** The JWT settings when a JWKS URI is set, else {@code null}; issuer and audience required. */
  private static DeviceJwt deviceJwt(Settings s) {
    String uri = s.string(AUTH_JWT_JWKS_URI);
    if (uri == null || uri.isBlank()) {
      return null;
    }
    for (String key : List.of(AUTH_JWT_ISSUER, AUTH_JWT_AUDIENCE)) {
      String value = s.string(key);
      if (value == null || value.isBlank()) {
        throw InvalidConfigurationException.of(
            key, "must be set while " + AUTH_JWT_JWKS_URI + " is: device JWTs are checked for it");
      }
    }
    return new DeviceJwt(
        URI.create(uri.strip()),
        s.string(AUTH_JWT_ISSUER).strip(),
        s.string(AUTH_JWT_AUDIENCE).strip(),
        s.string(AUTH_JWT_DEVICES_CLAIM).strip(),
        BridgeConfigModel.names(s.string(AUTH_JWT_ALGORITHMS)),
        s.millis(AUTH_JWT_REFRESH_INTERVAL_MS),
        s.millis(AUTH_JWT_CLOCK_SKEW_MS));
  }

  /**
   * While enabled: exactly one of the PEM pair (both files) and the PKCS#12 file; while not, none
   * of them is looked at. Whether the files hold usable key material is checked when the server
   * starts (it needs the TLS engine).
   */
  private static HttpTls httpTls(Settings s) {
    if (!s.bool(HTTP_TLS_ENABLED)) {
      return HttpTls.OFF;
    }
    Path certificate = path(s.string(HTTP_TLS_CERTIFICATE_FILE));
    Path key = path(s.string(HTTP_TLS_KEY_FILE));
    Path keystore = path(s.string(HTTP_TLS_KEYSTORE_FILE));
    if (keystore != null && (certificate != null || key != null)) {
      throw InvalidConfigurationException.of(
          HTTP_TLS_KEYSTORE_FILE,
          "set either it or "
              + HTTP_TLS_CERTIFICATE_FILE
              + " with "
              + HTTP_TLS_KEY_FILE
              + ", not both");
    }
    if (keystore == null && (certificate == null || key == null)) {
      String missing = certificate == null ? HTTP_TLS_CERTIFICATE_FILE : HTTP_TLS_KEY_FILE;
      throw InvalidConfigurationException.of(
          missing,
          "must be set while "
              + HTTP_TLS_ENABLED
              + " is true: give the PEM pair ("
              + HTTP_TLS_CERTIFICATE_FILE
              + ", "
              + HTTP_TLS_KEY_FILE
              + ") or "
              + HTTP_TLS_KEYSTORE_FILE);
    }
    String password = s.string(HTTP_TLS_KEYSTORE_PASSWORD);
    return new HttpTls(
        true,
        certificate,
        key,
        keystore,
        password == null ? "" : password,
        BridgeConfigModel.names(s.string(HTTP_TLS_PROTOCOLS)),
        s.millis(HTTP_TLS_RELOAD_INTERVAL_MS));
  }

  private static Path path(String value) {
    return value == null || value.isBlank() ? null : Path.of(value.strip());
  }

  /** 0 means one per processor the JVM sees. */
  private static int eventLoops(int configured) {
    return configured == 0 ? Runtime.getRuntime().availableProcessors() : configured;
  }

  private static Instant instant(String rfc3339) {
    return OffsetDateTime.parse(rfc3339).toInstant();
  }
}
