package dev.turnstile.bridge.config;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * The bridge's whole configuration, typed and validated. Built by {@link BridgeConfigLoader} from a
 * properties file and the environment. Key names are below; each key's type, default, valid values
 * and meaning are declared once in {@link BridgeConfigModel}.
 *
 * @param topicPrefix prepended to every topic name ({@link #TOPIC_PREFIX})
 * @param httpHost interface the HTTP server binds ({@link #HTTP_HOST})
 * @param httpPort HTTP port, 0 for any free port ({@link #HTTP_PORT})
 * @param httpEventLoops HTTP server instances, each on its own event loop ({@link
 *     #HTTP_EVENT_LOOPS})
 * @param bodyLimitBytes largest accepted request body ({@link #HTTP_BODY_LIMIT_BYTES})
 * @param batchMaxEvents most events in one batch request ({@link #HTTP_BATCH_MAX_EVENTS})
 * @param batchBodyLimitBytes largest accepted batch body ({@link #HTTP_BATCH_BODY_LIMIT_BYTES})
 * @param retryAfterSeconds {@code Retry-After} sent with a 503 ({@link #HTTP_RETRY_AFTER_SECONDS})
 * @param connectionLimits how long and how many HTTP connections may be held ({@link
 *     #HTTP_HEADER_TIMEOUT_MS}, {@link #HTTP_BODY_TIMEOUT_MS}, {@link #HTTP_IDLE_TIMEOUT_MS},
 *     {@link #HTTP_MAX_CONNECTIONS})
 * @param trustedProxies addresses and CIDR ranges of the proxies trusted to name the client in
 *     {@code X-Forwarded-For} ({@link #HTTP_TRUSTED_PROXIES}); empty: none
 * @param ackTimeout longest wait for a Kafka acknowledgement ({@link #KAFKA_ACK_TIMEOUT_MS})
 * @param maxInFlight writes awaiting their acknowledgement at most ({@link #KAFKA_MAX_IN_FLIGHT})
 * @param readinessInterval how often Kafka reachability is checked ({@link
 *     #KAFKA_READINESS_INTERVAL_MS})
 * @param duplicateCacheSize entries of the recent-accepted cache, 0 disables it ({@link
 *     #DUPLICATE_CACHE_SIZE})
 * @param duplicateCacheTtl how long an accepted event is remembered ({@link
 *     #DUPLICATE_CACHE_TTL_MS})
 * @param shutdownTimeout longest drain on close ({@link #SHUTDOWN_TIMEOUT_MS})
 * @param deviceMinOccurredAt earliest device timestamp accepted ({@link #DEVICE_MIN_OCCURRED_AT})
 * @param deviceMaxClockSkew how far ahead of the bridge's clock a device timestamp may be ({@link
 *     #DEVICE_MAX_CLOCK_SKEW_MS})
 * @param deviceAuth whether and how device requests are authenticated ({@link #AUTH_ENABLED},
 *     {@link #AUTH_CREDENTIALS_FILE}, {@link #AUTH_RELOAD_INTERVAL_MS})
 * @param rateLimit requests a device may send ({@link #RATE_LIMIT_REQUESTS_PER_SECOND}, {@link
 *     #RATE_LIMIT_BURST})
 * @param tls TLS of the HTTP listener ({@code bridge.http.tls.*}, see {@link HttpTls})
 * @param kafkaCommon {@code kafka.*} keys without the prefix (not {@code kafka.producer.*}): given
 *     to every Kafka client; holds at least {@code bootstrap.servers}
 * @param kafkaProducer {@code kafka.producer.*} keys without the prefix, given to the producer
 *     unchanged
 * @param serviceBus the Service Bus source, or {@code null} when {@link #SERVICEBUS_ENTITIES} is
 *     not set
 */
public record BridgeConfig(
    String topicPrefix,
    String httpHost,
    int httpPort,
    int httpEventLoops,
    long bodyLimitBytes,
    int batchMaxEvents,
    long batchBodyLimitBytes,
    int retryAfterSeconds,
    HttpConnectionLimits connectionLimits,
    List<String> trustedProxies,
    Duration ackTimeout,
    int maxInFlight,
    Duration readinessInterval,
    long duplicateCacheSize,
    Duration duplicateCacheTtl,
    Duration shutdownTimeout,
    Instant deviceMinOccurredAt,
    Duration deviceMaxClockSkew,
    DeviceAuth deviceAuth,
    RateLimit rateLimit,
    HttpTls tls,
    Map<String, String> kafkaCommon,
    Map<String, String> kafkaProducer,
    ServiceBusConfig serviceBus) {

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

  /**
   * HTTP server instances, each on its own Vert.x event loop (one thread), all on the same port;
   * connections are spread over them in turn. 0..1024; 0, the default, is one per processor the JVM
   * sees ({@code Runtime.availableProcessors()}, which follows a container's CPU limit): one event
   * loop is one core's worth of HTTP work at most.
   */
  public static final String HTTP_EVENT_LOOPS = "bridge.http.event-loops";

  /** Largest request body in bytes; larger ones get 413. Default {@code 65536} (64 KiB). */
  public static final String HTTP_BODY_LIMIT_BYTES = "bridge.http.body-limit-bytes";

  /**
   * Most events in one {@code POST .../events:batch}; more is 422 ({@code invalid-batch}, keyword
   * {@code maxItems}). 1..{@link #KAFKA_MAX_IN_FLIGHT} (a batch's writes are in flight at once).
   * Default {@code 1000}.
   */
  public static final String HTTP_BATCH_MAX_EVENTS = "bridge.http.batch.max-events";

  /**
   * Largest {@code POST .../events:batch} body in bytes; larger ones get 413. Default {@code
   * 1048576} (1 MiB).
   */
  public static final String HTTP_BATCH_BODY_LIMIT_BYTES = "bridge.http.batch.body-limit-bytes";

  /** Seconds in the {@code Retry-After} header of a 503. Default {@code 5}. */
  public static final String HTTP_RETRY_AFTER_SECONDS = "bridge.http.retry-after-seconds";

  /**
   * Milliseconds from a new connection to the end of its first request's line and headers; a
   * connection that has not sent them by then is closed (nothing to answer yet). Default {@code
   * 10000}.
   */
  public static final String HTTP_HEADER_TIMEOUT_MS = "bridge.http.header-timeout-ms";

  /**
   * Milliseconds from the end of a request's headers to the end of its body; a body not whole by
   * then is answered 408 ({@code request-timeout}) and the connection closed. Default {@code
   * 30000}.
   */
  public static final String HTTP_BODY_TIMEOUT_MS = "bridge.http.body-timeout-ms";

  /**
   * Milliseconds a connection may go without a byte read or written, and a keep-alive connection
   * may take to send its next request's headers after the previous request; then it is closed. Must
   * exceed {@link #KAFKA_ACK_TIMEOUT_MS} (a request waits that long for its answer). Default {@code
   * 60000}.
   */
  public static final String HTTP_IDLE_TIMEOUT_MS = "bridge.http.idle-timeout-ms";

  /** HTTP connections open at once; one more is closed as soon as it opens. Default 4096. */
  public static final String HTTP_MAX_CONNECTIONS = "bridge.http.max-connections";

  /**
   * Proxies trusted to name the client in {@code X-Forwarded-For}, comma-separated IP addresses or
   * CIDR ranges ({@code 10.0.0.0/8}, {@code 2001:db8::/32}). When a request comes from one, its
   * client address (for {@link #AUTH_FAILURE_LIMIT_PER_MINUTE}) is the rightmost {@code
   * X-Forwarded-For} address that is not itself a trusted proxy; otherwise the peer's address, and
   * {@code X-Forwarded-For} is ignored (anyone can write it). Set it to the ingress controller's
   * addresses when devices arrive through one, or every device behind it shares one address.
   * Default empty: no proxy trusted.
   */
  public static final String HTTP_TRUSTED_PROXIES = "bridge.http.trusted-proxies";

  /**
   * Bounds on what an HTTP client can hold: see {@link #HTTP_HEADER_TIMEOUT_MS}, {@link
   * #HTTP_BODY_TIMEOUT_MS}, {@link #HTTP_IDLE_TIMEOUT_MS}, {@link #HTTP_MAX_CONNECTIONS}.
   */
  public record HttpConnectionLimits(
      Duration headerTimeout, Duration bodyTimeout, Duration idleTimeout, int maxConnections) {}

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

  /**
   * Milliseconds {@code close()} waits for in-flight requests, Service Bus callbacks and writes.
   * Default 20000; with a Service Bus source, at least its settle timeout (checked at start-up).
   */
  public static final String SHUTDOWN_TIMEOUT_MS = "bridge.shutdown-timeout-ms";

  /**
   * Earliest {@code occurredAt} a device may send, an RFC 3339 date-time; earlier ones get 422
   * (keyword {@code range}). Default {@code 2000-01-01T00:00:00Z}, which lets replays of the 2014
   * reference data through.
   */
  public static final String DEVICE_MIN_OCCURRED_AT = "bridge.device.min-occurred-at";

  /**
   * Milliseconds a device's {@code occurredAt} may be ahead of the bridge's clock; later ones get
   * 422 (keyword {@code range}). Default {@code 86400000} (one day).
   */
  public static final String DEVICE_MAX_CLOCK_SKEW_MS = "bridge.device.max-clock-skew-ms";

  /**
   * {@code true} (the default): every request to the device routes needs {@code Authorization:
   * Bearer <token>} with a token of {@link #AUTH_CREDENTIALS_FILE}, or a JWT ({@link
   * #AUTH_JWT_JWKS_URI}), that covers the path's deviceId; 401 or 403 otherwise. {@code false} lets
   * anyone who reaches the port write events for any device and logs a warning at start-up.
   */
  public static final String AUTH_ENABLED = "bridge.auth.enabled";

  /**
   * Path of the device credentials file (format: {@code
   * dev.turnstile.bridge.application.auth.DeviceCredentials}), e.g. a mounted Kubernetes Secret.
   * Required while {@link #AUTH_ENABLED} is {@code true}, unless {@link #AUTH_JWT_JWKS_URI} is set;
   * read at start-up, which fails when it cannot be read or a line is invalid. No default.
   */
  public static final String AUTH_CREDENTIALS_FILE = "bridge.auth.credentials-file";

  /**
   * Milliseconds between two reads of the credentials file; a changed file replaces the
   * credentials, an unreadable or invalid one is logged and the previous credentials stay. Default
   * {@code 10000}.
   */
  public static final String AUTH_RELOAD_INTERVAL_MS = "bridge.auth.reload-interval-ms";

  /**
   * URL ({@code https://} or {@code http://}) of an identity provider's JSON Web Key Set (RFC 7517
   * §5), e.g. {@code https://idp.example/.well-known/jwks.json}. When set, the device routes also
   * accept JWTs (RFC 7519) signed with one of its keys, beside the credentials file's tokens (or
   * instead of them, when no credentials file is set). Fetched at start-up, which fails when it
   * cannot be; then again every {@link #AUTH_JWT_REFRESH_INTERVAL_MS}, and soon after a token names
   * a key the set does not hold (key rotation). No default: no JWTs.
   */
  public static final String AUTH_JWT_JWKS_URI = "bridge.auth.jwt.jwks-uri";

  /** The {@code iss} a JWT must carry, exactly (RFC 7519 §4.1.1). Required with the JWKS URI. */
  public static final String AUTH_JWT_ISSUER = "bridge.auth.jwt.issuer";

  /** A value the JWT's {@code aud} must hold (RFC 7519 §4.1.3). Required with the JWKS URI. */
  public static final String AUTH_JWT_AUDIENCE = "bridge.auth.jwt.audience";

  /**
   * The claim naming the devices a JWT may send for: a string or an array of strings, each a
   * deviceId, a prefix followed by {@code *}, or {@code *} (the credentials file's rule). Default
   * {@code sub}.
   */
  public static final String AUTH_JWT_DEVICES_CLAIM = "bridge.auth.jwt.devices-claim";

  /**
   * JWS algorithms accepted (RFC 7518 §3.1), comma-separated; only asymmetric ones ({@code RS*},
   * {@code PS*}, {@code ES*}), never {@code none} or {@code HS*}. Default {@code RS256,ES256}.
   */
  public static final String AUTH_JWT_ALGORITHMS = "bridge.auth.jwt.algorithms";

  /** Milliseconds between two fetches of the JWK set. Default {@code 300000}. */
  public static final String AUTH_JWT_REFRESH_INTERVAL_MS = "bridge.auth.jwt.refresh-interval-ms";

  /**
   * Milliseconds of clock skew allowed on {@code exp} and {@code nbf}, in whole seconds. Default
   * {@code 60000}.
   */
  public static final String AUTH_JWT_CLOCK_SKEW_MS = "bridge.auth.jwt.clock-skew-ms";

  /**
   * Requests per second one deviceId may send to the device routes on average (a token bucket
   * refilled at this rate); past it, 429 with {@code Retry-After}. 0 disables the limit. Default
   * {@code 100}.
   */
  public static final String RATE_LIMIT_REQUESTS_PER_SECOND =
      "bridge.rate-limit.requests-per-second";

  /**
   * Requests one deviceId may send at once before the rate applies (the bucket's capacity). Default
   * {@code 1000}: a device flushing a backlog after an outage is not refused.
   */
  public static final String RATE_LIMIT_BURST = "bridge.rate-limit.burst";

  /**
   * Failed authentications per minute one client address may have on average (a token bucket per
   * address, refilled at this rate, one taken by each 401 or 403); while its bucket is empty, the
   * address's requests to the device routes get 429 ({@code authentication-throttled}) with {@code
   * Retry-After} before their credentials are checked, so a flood of made-up tokens or forged JWT
   * signatures costs no signature check. The client address: {@link #HTTP_TRUSTED_PROXIES}. 0
   * disables the limit. Default {@code 600} (10 a second).
   */
  public static final String AUTH_FAILURE_LIMIT_PER_MINUTE = "bridge.auth.failure-limit.per-minute";

  /** Failed authentications one client address may have at once (the bucket). Default 100. */
  public static final String AUTH_FAILURE_LIMIT_BURST = "bridge.auth.failure-limit.burst";

  /**
   * Device authentication: see {@link #AUTH_ENABLED}, {@link #AUTH_CREDENTIALS_FILE}, {@link
   * #AUTH_RELOAD_INTERVAL_MS}, {@link #AUTH_JWT_JWKS_URI}.
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

  /**
   * Failed authentications per client address: see {@link #AUTH_FAILURE_LIMIT_PER_MINUTE}, {@link
   * #AUTH_FAILURE_LIMIT_BURST}.
   */
  public record FailureLimit(int perMinute, int burst) {
    /** Whether failures are limited at all. */
    public boolean enabled() {
      return perMinute > 0;
    }
  }

  /**
   * Device JWTs from an identity provider: see {@link #AUTH_JWT_JWKS_URI} and the keys after it.
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

  /**
   * Per-device rate limit: see {@link #RATE_LIMIT_REQUESTS_PER_SECOND}, {@link #RATE_LIMIT_BURST}.
   */
  public record RateLimit(int requestsPerSecond, int burst) {
    /** Whether requests are limited at all. */
    public boolean enabled() {
      return requestsPerSecond > 0;
    }
  }

  /**
   * {@code true}: the HTTP listener (device routes, probes, metrics) speaks HTTPS only, with the
   * key material of either {@link #HTTP_TLS_CERTIFICATE_FILE} and {@link #HTTP_TLS_KEY_FILE} (PEM)
   * or {@link #HTTP_TLS_KEYSTORE_FILE} (PKCS#12); a plain-HTTP request on that port gets no answer.
   * Default {@code false} (local runs; turn it on wherever the port is reachable from outside the
   * pod, unless a proxy in front terminates TLS).
   */
  public static final String HTTP_TLS_ENABLED = "bridge.http.tls.enabled";

  /**
   * PEM file with the server certificate first, then its intermediates (RFC 7468 {@code
   * CERTIFICATE} blocks), e.g. {@code tls.crt} of a Kubernetes TLS Secret. With {@link
   * #HTTP_TLS_KEY_FILE}; not with {@link #HTTP_TLS_KEYSTORE_FILE}. No default.
   */
  public static final String HTTP_TLS_CERTIFICATE_FILE = "bridge.http.tls.certificate-file";

  /**
   * PEM file with the certificate's unencrypted private key: {@code PRIVATE KEY} (PKCS#8, RSA or
   * EC) or {@code RSA PRIVATE KEY} (PKCS#1), e.g. {@code tls.key} of a Kubernetes TLS Secret. A SEC
   * 1 {@code EC PRIVATE KEY} is not read reliably by Vert.x 5.0.7: give EC keys as PKCS#8. With
   * {@link #HTTP_TLS_CERTIFICATE_FILE}. No default.
   */
  public static final String HTTP_TLS_KEY_FILE = "bridge.http.tls.key-file";

  /**
   * PKCS#12 file (RFC 7292) holding one private key and its certificate chain; instead of the PEM
   * pair. Its password is {@link #HTTP_TLS_KEYSTORE_PASSWORD}. No default.
   */
  public static final String HTTP_TLS_KEYSTORE_FILE = "bridge.http.tls.keystore-file";

  /** Password of {@link #HTTP_TLS_KEYSTORE_FILE} (secret, masked). Default none (empty). */
  public static final String HTTP_TLS_KEYSTORE_PASSWORD = "bridge.http.tls.keystore-password";

  /**
   * TLS versions offered, comma-separated, from {@code TLSv1.2} and {@code TLSv1.3} (RFC 8996
   * deprecates 1.0 and 1.1). Default {@code TLSv1.2,TLSv1.3}.
   */
  public static final String HTTP_TLS_PROTOCOLS = "bridge.http.tls.protocols";

  /**
   * Milliseconds between two reads of the key material files; changed content that is valid
   * replaces the key material for new connections, invalid content is logged, counted and the
   * previous material stays. Default {@code 10000}.
   */
  public static final String HTTP_TLS_RELOAD_INTERVAL_MS = "bridge.http.tls.reload-interval-ms";

  /**
   * TLS of the HTTP listener: see {@link #HTTP_TLS_ENABLED} and the keys after it. Exactly one of
   * the PEM pair ({@code certificateFile}, {@code keyFile}) and {@code keystoreFile} is set while
   * enabled; all are {@code null} while not.
   *
   * @param keystorePassword {@code ""} when none is given; masked in {@link #toString()}
   * @param protocols e.g. {@code [TLSv1.2, TLSv1.3]}
   */
  public record HttpTls(
      boolean enabled,
      Path certificateFile,
      Path keyFile,
      Path keystoreFile,
      String keystorePassword,
      java.util.List<String> protocols,
      Duration reloadInterval) {

    /** TLS off. */
    public static final HttpTls OFF =
        new HttpTls(false, null, null, null, "", java.util.List.of(), Duration.ofSeconds(10));

    public HttpTls {
      protocols = java.util.List.copyOf(protocols);
    }

    /** Whether the key material is a PKCS#12 file (else the PEM pair). */
    public boolean pkcs12() {
      return keystoreFile != null;
    }

    @Override
    public String toString() {
      if (!enabled) {
        return "HttpTls[enabled=false]";
      }
      return "HttpTls[enabled=true, "
          + (pkcs12()
              ? "keystoreFile=" + keystoreFile + ", keystorePassword=[hidden]"
              : "certificateFile=" + certificateFile + ", keyFile=" + keyFile)
          + ", protocols="
          + protocols
          + ", reloadInterval="
          + reloadInterval
          + "]";
    }
  }

  /**
   * Names of the Service Bus entities to receive from, comma-separated, each {@code [a-z0-9]+}
   * (e.g. {@code billing,orders}); each is configured under {@link #SERVICEBUS_ENTITY_PREFIX}.
   * Default none: the Service Bus source does not start.
   */
  public static final String SERVICEBUS_ENTITIES = "bridge.servicebus.entities";

  /**
   * Service Bus SAS connection string (secret, masked). Either this or {@link
   * #SERVICEBUS_NAMESPACE}. One with {@code UseDevelopmentEmulator=true} (no TLS) is refused unless
   * {@link #SERVICEBUS_LOCAL_MODE} is {@code true}.
   */
  public static final String SERVICEBUS_CONNECTION_STRING = "bridge.servicebus.connection-string";

  /**
   * Fully qualified Service Bus namespace, e.g. {@code my-ns.servicebus.windows.net}. Without a
   * connection string the bridge authenticates with {@code DefaultAzureCredential} (workload
   * identity on Kubernetes). Also names the namespace in {@code ce_source}; default with a
   * connection string: its {@code Endpoint} host.
   */
  public static final String SERVICEBUS_NAMESPACE = "bridge.servicebus.namespace";

  /** {@code true} allows an emulator connection string (tests, local runs). Default false. */
  public static final String SERVICEBUS_LOCAL_MODE = "bridge.servicebus.local-mode";

  /**
   * Milliseconds a message callback waits for Kafka's acknowledgement before abandoning the message
   * and pausing; must be below every entity's {@link #ENTITY_MAX_AUTO_LOCK_RENEW_MS}, since lock
   * renewal only runs while the callback runs. Default {@code 15000}; must not exceed {@link
   * #SHUTDOWN_TIMEOUT_MS}.
   */
  public static final String SERVICEBUS_SETTLE_TIMEOUT_MS = "bridge.servicebus.settle-timeout-ms";

  /**
   * Milliseconds between two checks, while paused for Kafka, of whether Kafka is back. Default
   * {@code 1000}.
   */
  public static final String SERVICEBUS_RESUME_CHECK_INTERVAL_MS =
      "bridge.servicebus.resume-check-interval-ms";

  /** Prefix of per-entity keys: {@code bridge.servicebus.entity.<name>.<key>}. */
  public static final String SERVICEBUS_ENTITY_PREFIX = "bridge.servicebus.entity.";

  /** Entity key: queue name. Either this or {@link #ENTITY_TOPIC} with a subscription. */
  public static final String ENTITY_QUEUE = "queue";

  /** Entity key: topic name, with {@link #ENTITY_SUBSCRIPTION}. */
  public static final String ENTITY_TOPIC = "topic";

  /** Entity key: subscription name, with {@link #ENTITY_TOPIC}. */
  public static final String ENTITY_SUBSCRIPTION = "subscription";

  /** Entity key: {@code true} for a session-enabled entity. Default false. */
  public static final String ENTITY_SESSIONS = "sessions";

  /**
   * Entity key: Kafka topic the messages go to, without the prefix ({@link #TOPIC_PREFIX} is
   * applied). Default {@code servicebus-messages.raw.v1}.
   */
  public static final String ENTITY_KAFKA_TOPIC = "kafka-topic";

  /**
   * Entity key: the Kafka record key, {@code session-id | partition-key | property:<name> |
   * pointer:</json/pointer> | message-id}. Default {@code message-id}.
   */
  public static final String ENTITY_KEY = "key";

  /** Entity key: {@code true} dead-letters a message without that key. Default true. */
  public static final String ENTITY_KEY_REQUIRED = "key-required";

  /** Entity key: message callbacks at once (per session with sessions), 1..100. Default 1. */
  public static final String ENTITY_MAX_CONCURRENT_CALLS = "max-concurrent-calls";

  /** Entity key: sessions processed at once (session-enabled entities), 1..100. Default 1. */
  public static final String ENTITY_MAX_CONCURRENT_SESSIONS = "max-concurrent-sessions";

  /**
   * Entity key: milliseconds the SDK keeps renewing a message's lock while its callback runs.
   * Default {@code 300000} (5 minutes).
   */
  public static final String ENTITY_MAX_AUTO_LOCK_RENEW_MS = "max-auto-lock-renew-ms";

  /**
   * Entity key: messages fetched ahead, 0..1000. Default 0: prefetched messages' locks are not
   * renewed and run out while they wait.
   */
  public static final String ENTITY_PREFETCH = "prefetch";

  /**
   * Entity key: only {@code peek-lock}. {@code receive-and-delete} is refused: the message would be
   * gone from Service Bus before Kafka acknowledged it.
   */
  public static final String ENTITY_RECEIVE_MODE = "receive-mode";

  /**
   * Entity key: JSON Schema (2020-12) every body must satisfy, a classpath resource or a file path;
   * a body that does not is dead-lettered. Default none.
   */
  public static final String ENTITY_SCHEMA = "schema";

  /** Every per-entity key, for validation and the environment mapping. */
  public static final java.util.List<String> ENTITY_KEYS =
      java.util.List.of(
          ENTITY_QUEUE,
          ENTITY_TOPIC,
          ENTITY_SUBSCRIPTION,
          ENTITY_SESSIONS,
          ENTITY_KAFKA_TOPIC,
          ENTITY_KEY,
          ENTITY_KEY_REQUIRED,
          ENTITY_MAX_CONCURRENT_CALLS,
          ENTITY_MAX_CONCURRENT_SESSIONS,
          ENTITY_MAX_AUTO_LOCK_RENEW_MS,
          ENTITY_PREFETCH,
          ENTITY_RECEIVE_MODE,
          ENTITY_SCHEMA);

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

  private static String masked(Map<String, String> values) {
    return new TreeMap<>(values)
        .entrySet().stream()
            .map(
                e ->
                    e.getKey()
                        + "="
                        + (BridgeConfigModel.MODEL.isSecret(KAFKA_PREFIX + e.getKey())
                            ? "[hidden]"
                            : e.getValue()))
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
        + ", httpEventLoops="
        + httpEventLoops
        + ", bodyLimitBytes="
        + bodyLimitBytes
        + ", batchMaxEvents="
        + batchMaxEvents
        + ", batchBodyLimitBytes="
        + batchBodyLimitBytes
        + ", retryAfterSeconds="
        + retryAfterSeconds
        + ", connectionLimits="
        + connectionLimits
        + ", trustedProxies="
        + trustedProxies
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
        + ", deviceMinOccurredAt="
        + deviceMinOccurredAt
        + ", deviceMaxClockSkew="
        + deviceMaxClockSkew
        + ", deviceAuth="
        + deviceAuth
        + ", rateLimit="
        + rateLimit
        + ", tls="
        + tls
        + ", kafkaCommon="
        + masked(kafkaCommon)
        + ", kafkaProducer="
        + masked(kafkaProducer)
        + ", serviceBus="
        + serviceBus
        + "]";
  }
}
