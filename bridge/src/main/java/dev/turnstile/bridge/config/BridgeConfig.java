package dev.turnstile.bridge.config;

import static dev.turnstile.bridge.config.BridgeConfigModel.*;

import dev.turnstile.runtime.config.Setting;
import dev.turnstile.runtime.config.Settings;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.config.types.Password;

/**
 * The bridge's whole configuration, typed and validated; built by {@link BridgeConfigLoader}. Every
 * key is declared once in {@link BridgeConfigModel}, and read with its declaration: {@code
 * config.get(HTTP_PORT)}; the accessors below read the same way, and group keys an adapter takes
 * together. {@link #toString()} shows every key, secrets hidden.
 */
public final class BridgeConfig {

  private final Settings settings;
  private final ServiceBusConfig serviceBus;

  BridgeConfig(Settings settings) {
    this.settings = settings;
    this.serviceBus = ServiceBusConfig.from(settings);
  }

  /** The value of a key, or its default. */
  public <T> T get(Setting<T> key) {
    return settings.get(key);
  }

  /** The checked values. */
  public Settings settings() {
    return settings;
  }

  /** Bounds on what an HTTP client can hold: header, body and idle timeouts, connections. */
  public record HttpConnectionLimits(
      Duration headerTimeout, Duration bodyTimeout, Duration idleTimeout, int maxConnections) {}

  /**
   * Device authentication: {@code bridge.auth.*}.
   *
   * @param credentialsFile {@code null} when authentication is off or only JWTs are accepted
   * @param jwt {@code null} when authentication is off or no JWTs are accepted
   * @param failureLimit failed authentications per client address
   */
  public record DeviceAuth(
      boolean enabled,
      Path credentialsFile,
      Duration reloadInterval,
      DeviceJwt jwt,
      FailureLimit failureLimit) {}

  /** Failed authentications per client address: {@code bridge.auth.failure-limit.*}. */
  public record FailureLimit(int perMinute, int burst) {
    /** Whether failures are limited at all. */
    public boolean enabled() {
      return perMinute > 0;
    }
  }

  /**
   * Device JWTs from an identity provider: {@code bridge.auth.jwt.*}.
   *
   * @param algorithms JWS algorithm names, at least one
   */
  public record DeviceJwt(
      URI jwksUri,
      String issuer,
      String audience,
      String devicesClaim,
      List<String> algorithms,
      Duration refreshInterval,
      Duration clockSkew) {}

  /** Per-device rate limit: {@code bridge.rate-limit.*}. */
  public record RateLimit(int requestsPerSecond, int burst) {
    /** Whether requests are limited at all. */
    public boolean enabled() {
      return requestsPerSecond > 0;
    }
  }

  /**
   * TLS of the HTTP listener: {@code bridge.http.tls.*}. Exactly one of the PEM pair ({@code
   * certificateFile}, {@code keyFile}) and {@code keystoreFile} is set while enabled; all are
   * {@code null} while not.
   *
   * @param keystorePassword {@code ""} when none is given; a {@link Password}, as the model types a
   *     secret, so {@link #toString()} hides it
   * @param protocols e.g. {@code [TLSv1.2, TLSv1.3]}
   */
  public record HttpTls(
      boolean enabled,
      Path certificateFile,
      Path keyFile,
      Path keystoreFile,
      Password keystorePassword,
      List<String> protocols,
      Duration reloadInterval) {

    /** TLS off. */
    public static final HttpTls OFF =
        new HttpTls(false, null, null, null, new Password(""), List.of(), Duration.ofSeconds(10));

    public HttpTls {
      protocols = List.copyOf(protocols);
    }

    /** Whether the key material is a PKCS#12 file (else the PEM pair). */
    public boolean pkcs12() {
      return keystoreFile != null;
    }
  }

  public HttpConnectionLimits connectionLimits() {
    return new HttpConnectionLimits(
        get(HTTP_HEADER_TIMEOUT_MS),
        get(HTTP_BODY_TIMEOUT_MS),
        get(HTTP_IDLE_TIMEOUT_MS),
        get(HTTP_MAX_CONNECTIONS));
  }

  public DeviceAuth deviceAuth() {
    boolean enabled = get(AUTH_ENABLED);
    DeviceJwt jwt =
        get(AUTH_JWT_JWKS_URI)
            .filter(uri -> enabled)
            .map(
                uri ->
                    new DeviceJwt(
                        uri,
                        get(AUTH_JWT_ISSUER).orElseThrow(),
                        get(AUTH_JWT_AUDIENCE).orElseThrow(),
                        get(AUTH_JWT_DEVICES_CLAIM),
                        get(AUTH_JWT_ALGORITHMS),
                        get(AUTH_JWT_REFRESH_INTERVAL_MS),
                        get(AUTH_JWT_CLOCK_SKEW_MS)))
            .orElse(null);
    return new DeviceAuth(
        enabled,
        get(AUTH_CREDENTIALS_FILE).filter(file -> enabled).orElse(null),
        get(AUTH_RELOAD_INTERVAL_MS),
        jwt,
        new FailureLimit(get(AUTH_FAILURE_LIMIT_PER_MINUTE), get(AUTH_FAILURE_LIMIT_BURST)));
  }

  public RateLimit rateLimit() {
    return new RateLimit(get(RATE_LIMIT_REQUESTS_PER_SECOND), get(RATE_LIMIT_BURST));
  }

  public HttpTls tls() {
    if (!get(HTTP_TLS_ENABLED)) {
      return HttpTls.OFF;
    }
    return new HttpTls(
        true,
        get(HTTP_TLS_CERTIFICATE_FILE).orElse(null),
        get(HTTP_TLS_KEY_FILE).orElse(null),
        get(HTTP_TLS_KEYSTORE_FILE).orElse(null),
        new Password(get(HTTP_TLS_KEYSTORE_PASSWORD).orElse("")),
        get(HTTP_TLS_PROTOCOLS),
        get(HTTP_TLS_RELOAD_INTERVAL_MS));
  }

  /**
   * {@code kafka.*} keys given, without the prefix (not {@code kafka.producer.*}): for every Kafka
   * client; holds at least {@code bootstrap.servers}.
   */
  public Map<String, String> kafkaCommon() {
    return settings.passThrough(KAFKA_PREFIX);
  }

  /** The Service Bus source, or {@code null} when {@code bridge.servicebus.entities} is not set. */
  public ServiceBusConfig serviceBus() {
    return serviceBus;
  }

  /**
   * Keys given for the producer: the common {@code kafka.*} ones, then the producer's own; {@link
   * BridgeProducerConfig} adds the bridge's.
   */
  public Map<String, String> producerProperties() {
    Map<String, String> merged = new TreeMap<>(kafkaCommon());
    merged.putAll(settings.passThrough(KAFKA_PRODUCER_PREFIX));
    return merged;
  }

  @Override
  public String toString() {
    return settings.toString();
  }
}
