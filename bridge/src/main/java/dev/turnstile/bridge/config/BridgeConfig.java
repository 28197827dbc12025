package dev.turnstile.bridge.config;

import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * The bridge's whole configuration, typed and validated. Built by {@link BridgeConfigLoader} from a
 * properties file and the environment; each key is declared once below with its meaning, unit and
 * default.
 *
 * @param topicPrefix prepended to every topic name ({@link #TOPIC_PREFIX})
 * @param httpHost interface the HTTP server binds ({@link #HTTP_HOST})
 * @param httpPort HTTP port, 0 for any free port ({@link #HTTP_PORT})
 * @param bodyLimitBytes largest accepted request body ({@link #HTTP_BODY_LIMIT_BYTES})
 * @param retryAfterSeconds {@code Retry-After} sent with a 503 ({@link #HTTP_RETRY_AFTER_SECONDS})
 * @param ackTimeout longest wait for a Kafka acknowledgement ({@link #KAFKA_ACK_TIMEOUT_MS})
 * @param maxInFlight writes awaiting their acknowledgement at most ({@link #KAFKA_MAX_IN_FLIGHT})
 * @param readinessInterval how often Kafka reachability is checked ({@link
 *     #KAFKA_READINESS_INTERVAL_MS})
 * @param duplicateCacheSize entries of the recent-accepted cache, 0 disables it ({@link
 *     #DUPLICATE_CACHE_SIZE})
 * @param duplicateCacheTtl how long an accepted event is remembered ({@link
 *     #DUPLICATE_CACHE_TTL_MS})
 * @param shutdownTimeout longest drain on close ({@link #SHUTDOWN_TIMEOUT_MS})
 * @param kafkaCommon {@code kafka.*} keys without the prefix (not {@code kafka.producer.*}): given
 *     to every Kafka client; holds at least {@code bootstrap.servers}
 * @param kafkaProducer {@code kafka.producer.*} keys without the prefix, given to the producer
 *     unchanged
 */
public record BridgeConfig(
    String topicPrefix,
    String httpHost,
    int httpPort,
    long bodyLimitBytes,
    int retryAfterSeconds,
    Duration ackTimeout,
    int maxInFlight,
    Duration readinessInterval,
    long duplicateCacheSize,
    Duration duplicateCacheTtl,
    Duration shutdownTimeout,
    Map<String, String> kafkaCommon,
    Map<String, String> kafkaProducer) {

  /** Kafka bootstrap servers, {@code host:port[,host:port...]}. Required, no default. */
  public static final String KAFKA_BOOTSTRAP_SERVERS = "kafka.bootstrap.servers";

  /**
   * Prefix of every Kafka client key. {@code kafka.<key>} goes to every client (producer and the
   * readiness admin client), {@code kafka.producer.<key>} to the producer only, both unchanged.
   */
  public static final String KAFKA_PREFIX = "kafka.";

  /** Prefix of producer-only pass-through keys, e.g. {@code kafka.producer.sasl.jaas.config}. */
  public static final String KAFKA_PRODUCER_PREFIX = "kafka.producer.";

  /** Prepended to every topic name, e.g. {@code prod.}. Default {@code ""} (none). */
  public static final String TOPIC_PREFIX = "topic.prefix";

  /** Interface the HTTP server binds. Default {@code 0.0.0.0}. */
  public static final String HTTP_HOST = "bridge.http.host";

  /** HTTP port, 0..65535; 0 picks any free port. Default {@code 8080}. */
  public static final String HTTP_PORT = "bridge.http.port";

  /** Largest request body in bytes; larger ones get 413. Default {@code 65536} (64 KiB). */
  public static final String HTTP_BODY_LIMIT_BYTES = "bridge.http.body-limit-bytes";

  /** Seconds in the {@code Retry-After} header of a 503. Default {@code 5}. */
  public static final String HTTP_RETRY_AFTER_SECONDS = "bridge.http.retry-after-seconds";

  /**
   * Milliseconds to wait for Kafka's acknowledgement of one write before answering 503; also the
   * producer's {@code delivery.timeout.ms} and {@code max.block.ms}. Default {@code 10000}.
   */
  public static final String KAFKA_ACK_TIMEOUT_MS = "bridge.kafka.ack-timeout-ms";

  /** Writes awaiting an acknowledgement at most; beyond it requests get 503. Default 10000. */
  public static final String KAFKA_MAX_IN_FLIGHT = "bridge.kafka.max-in-flight";

  /** Milliseconds between two Kafka reachability checks for readiness. Default {@code 5000}. */
  public static final String KAFKA_READINESS_INTERVAL_MS = "bridge.kafka.readiness-interval-ms";

  /** Entries of the recent-accepted cache; 0 disables it. Default {@code 100000}. */
  public static final String DUPLICATE_CACHE_SIZE = "bridge.duplicate-cache.size";

  /** Milliseconds an accepted event stays in that cache. Default {@code 600000} (10 minutes). */
  public static final String DUPLICATE_CACHE_TTL_MS = "bridge.duplicate-cache.ttl-ms";

  /** Milliseconds {@code close()} waits for in-flight requests and writes. Default 10000. */
  public static final String SHUTDOWN_TIMEOUT_MS = "bridge.shutdown-timeout-ms";

  /** Key names whose values are masked in {@link #toString()}. */
  private static final java.util.List<String> SECRET_MARKERS =
      java.util.List.of("password", "jaas", "secret", "token", "credentials", "key");

  public BridgeConfig {
    kafkaCommon = Map.copyOf(kafkaCommon);
    kafkaProducer = Map.copyOf(kafkaProducer);
  }

  /** The bootstrap servers, as every Kafka client gets them. */
  public String bootstrapServers() {
    return kafkaCommon.get("bootstrap.servers");
  }

  /** Keys for the producer: the common {@code kafka.*} ones, then the producer's own. */
  public Map<String, String> producerProperties() {
    Map<String, String> merged = new TreeMap<>(kafkaCommon);
    merged.putAll(kafkaProducer);
    return merged;
  }

  /** Whether a key's value must not be shown (passwords, JAAS configs, tokens, keys). */
  public static boolean isSecret(String key) {
    String lower = key.toLowerCase(Locale.ROOT);
    return SECRET_MARKERS.stream()
        .anyMatch(marker -> lower.contains(marker) && !lower.endsWith("serializer"));
  }

  private static String masked(Map<String, String> values) {
    return new TreeMap<>(values)
        .entrySet().stream()
            .map(e -> e.getKey() + "=" + (isSecret(e.getKey()) ? "****" : e.getValue()))
            .collect(Collectors.joining(", ", "{", "}"));
  }

  @Override
  public String toString() {
    return "BridgeConfig[topicPrefix="
        + topicPrefix
        + ", httpHost="
        + httpHost
        + ", httpPort="
        + httpPort
        + ", bodyLimitBytes="
        + bodyLimitBytes
        + ", retryAfterSeconds="
        + retryAfterSeconds
        + ", ackTimeout="
        + ackTimeout
        + ", maxInFlight="
        + maxInFlight
        + ", readinessInterval="
        + readinessInterval
        + ", duplicateCacheSize="
        + duplicateCacheSize
        + ", duplicateCacheTtl="
        + duplicateCacheTtl
        + ", shutdownTimeout="
        + shutdownTimeout
        + ", kafkaCommon="
        + masked(kafkaCommon)
        + ", kafkaProducer="
        + masked(kafkaProducer)
        + "]";
  }
}
