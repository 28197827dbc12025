package dev.turnstile.bridge.config;

import dev.turnstile.bridge.application.KeyRule;
import dev.turnstile.runtime.config.ConfigModel;
import dev.turnstile.runtime.config.Keys;
import dev.turnstile.runtime.config.PassThrough;
import dev.turnstile.runtime.config.Setting;
import dev.turnstile.schemas.TopicCatalogue;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.ConfigDef;

/**
 * Every configuration key of the bridge, declared once: name, type, default, valid values, meaning,
 * and whether it is secret. Each constant is also the handle code reads the key with ({@code
 * config.get(HTTP_PORT)}); the generated configuration tables and {@code --check-config} come from
 * {@link #MODEL}, the rules between keys from {@link BridgeConfigRules}. Long by nature: one
 * declaration per key.
 */
public final class BridgeConfigModel {

  private BridgeConfigModel() {}

  /**
   * Prefix of every Kafka client key. {@code kafka.<key>} goes to every client (producer and the
   * readiness admin client), {@code kafka.producer.<key>} to the producer only, both unchanged.
   */
  public static final String KAFKA_PREFIX = "kafka.";

  /** Prefix of producer-only pass-through keys, e.g. {@code kafka.producer.sasl.jaas.config}. */
  public static final String KAFKA_PRODUCER_PREFIX = "kafka.producer.";

  /** Prefix of per-entity keys: {@code bridge.servicebus.entity.<name>.<key>}. */
  public static final String SERVICEBUS_ENTITY_PREFIX = "bridge.servicebus.entity.";

  private static final Keys KEYS = new Keys();
  private static final Keys.Group BRIDGE = KEYS.group("Bridge");

  public static final Setting<String> KAFKA_BOOTSTRAP_SERVERS =
      BRIDGE
          .required("kafka.bootstrap.servers")
          .doc("Kafka bootstrap servers, host:port[,host:port...]");

  public static final Setting<String> TOPIC_PREFIX =
      BRIDGE.string("topic.prefix", "").doc("prefix of every topic name, e.g. `prod.`");

  public static final Setting<String> HTTP_HOST =
      BRIDGE.string("bridge.http.host", "0.0.0.0").doc("interface the HTTP server binds");

  public static final Setting<Integer> HTTP_PORT =
      BRIDGE
          .integer("bridge.http.port", 8080)
          .between(0, 65_535)
          .doc("HTTP port of the API, probes and metrics; 0 picks any free port");

  /** Read as the number of event loops: 0 is read as the processors the JVM sees. */
  public static final Setting<Integer> HTTP_EVENT_LOOPS =
      BRIDGE
          .integer("bridge.http.event-loops", 0)
          .between(0, 1_024)
          .as(loops -> loops == 0 ? Runtime.getRuntime().availableProcessors() : loops)
          .doc(
              "HTTP server instances, each on its own Vert.x event loop (one thread), all on one"
                  + " port; new connections go to them in turn. One event loop is at most one core"
                  + " of HTTP work. 0: as many as the processors the JVM sees"
                  + " (`availableProcessors`, which follows a container's CPU limit)");

  public static final Setting<Long> HTTP_BODY_LIMIT_BYTES =
      BRIDGE
          .longValue("bridge.http.body-limit-bytes", 65_536)
          .between(1, Integer.MAX_VALUE)
          .doc("largest request body in bytes; larger ones get 413");

  public static final Setting<Integer> HTTP_BATCH_MAX_EVENTS =
      BRIDGE
          .integer("bridge.http.batch.max-events", 1_000)
          .between(1, 1_000_000)
          .doc(
              "most events in one `events:batch`; more is 422 (`maxItems`); at most"
                  + " `bridge.kafka.max-in-flight` (checked at start-up)");

  public static final Setting<Long> HTTP_BATCH_BODY_LIMIT_BYTES =
      BRIDGE
          .longValue("bridge.http.batch.body-limit-bytes", 1_048_576)
          .between(1, Integer.MAX_VALUE)
          .doc("largest `events:batch` body in bytes; larger ones get 413");

  public static final Setting<Integer> HTTP_RETRY_AFTER_SECONDS =
      BRIDGE
          .integer("bridge.http.retry-after-seconds", 5)
          .between(0, 86_400)
          .doc("`Retry-After` of a 503, in seconds");

  public static final Setting<Duration> HTTP_HEADER_TIMEOUT_MS =
      BRIDGE
          .millis("bridge.http.header-timeout-ms", 10_000)
          .between(100, 3_600_000)
          .doc(
              "a new connection must send its first request line and headers within this, else it"
                  + " is closed (Vert.x has no request to answer before the headers are read)");

  public static final Setting<Duration> HTTP_BODY_TIMEOUT_MS =
      BRIDGE
          .millis("bridge.http.body-timeout-ms", 30_000)
          .between(100, 3_600_000)
          .doc(
              "once the headers are read, the whole body must arrive within this, else `408`"
                  + " problem+json (`request-timeout`) and the connection is closed");

  public static final Setting<Duration> HTTP_IDLE_TIMEOUT_MS =
      BRIDGE
          .millis("bridge.http.idle-timeout-ms", 60_000)
          .between(200, 3_600_000)
          .doc(
              "no byte read or written for this long, or a keep-alive connection not sending its"
                  + " next request's headers within this after the previous request: closed; must"
                  + " exceed `bridge.kafka.ack-timeout-ms` (checked at start-up)");

  public static final Setting<Integer> HTTP_MAX_CONNECTIONS =
      BRIDGE
          .integer("bridge.http.max-connections", 4_096)
          .between(1, 1_000_000)
          .doc("HTTP connections open at once; one more is closed as soon as it opens");

  /**
   * Read as the addresses and CIDR ranges, each a literal: a host name would need a DNS look-up,
   * and what it resolves to can change.
   */
  public static final Setting<List<String>> HTTP_TRUSTED_PROXIES =
      BRIDGE
          .string("bridge.http.trusted-proxies", "")
          .check("IP addresses and CIDR ranges", Validators::ipRanges)
          .as(Validators::names)
          .doc(
              "proxies trusted to name the client in `X-Forwarded-For` (comma-separated addresses or"
                  + " CIDR ranges, e.g. the ingress controller's): from one of them, the client"
                  + " address (for `bridge.auth.failure-limit.*`) is the rightmost"
                  + " `X-Forwarded-For` address that is not a trusted proxy; otherwise the peer's"
                  + " (`X-Forwarded-For` ignored); empty: none trusted");

  public static final Setting<Duration> KAFKA_ACK_TIMEOUT_MS =
      BRIDGE
          .millis("bridge.kafka.ack-timeout-ms", 10_000)
          .between(100, 3_600_000)
          .doc(
              "longest wait for Kafka's acknowledgement of a write before 503 (a write Kafka cannot"
                  + " take at once, its metadata not fetched yet or its buffer full, is tried again"
                  + " until then); also the producer's `delivery.timeout.ms`");

  public static final Setting<Integer> KAFKA_MAX_IN_FLIGHT =
      BRIDGE
          .integer("bridge.kafka.max-in-flight", 10_000)
          .between(1, 1_000_000)
          .doc("writes awaiting their acknowledgement; past it, 503 at once");

  public static final Setting<Duration> KAFKA_READINESS_INTERVAL_MS =
      BRIDGE
          .millis("bridge.kafka.readiness-interval-ms", 5_000)
          .between(100, 3_600_000)
          .doc(
              "how often readiness checks Kafka and the topics (as the catalogue declares"
                  + " them: partitions, cleanup policy)");

  public static final Setting<Long> DUPLICATE_CACHE_SIZE =
      BRIDGE
          .longValue("bridge.duplicate-cache.size", 100_000)
          .between(0, 100_000_000)
          .doc(
              "the last this many (deviceId, eventId) Kafka acknowledged within"
                  + " `bridge.duplicate-cache.ttl-ms` are answered `200 duplicate` without a second"
                  + " write (the oldest forgotten first, whatever was looked up most); 0 disables."
                  + " About 50 bytes of heap per id (5 MB at the default), grown by doubling as"
                  + " the cache fills and never given back."
                  + " Meters `cache_gets_total{cache=\"duplicate-cache\",result=\"hit\"|\"miss\"}`,"
                  + " `cache_hit_ratio`, `cache_evictions_total`, `cache_size`");

  public static final Setting<Duration> DUPLICATE_CACHE_TTL_MS =
      BRIDGE
          .millis("bridge.duplicate-cache.ttl-ms", 600_000)
          .between(1, 7L * 86_400_000)
          .doc("how long an acknowledged event stays in that cache");

  public static final Setting<Duration> SHUTDOWN_TIMEOUT_MS =
      BRIDGE
          .millis("bridge.shutdown-timeout-ms", 20_000)
          .between(0, 600_000)
          .doc(
              "longest drain on SIGTERM (HTTP requests, Service Bus callbacks, Kafka writes); with"
                  + " Service Bus at least the settle timeout (checked at start-up); keep the pod's"
                  + " `terminationGracePeriodSeconds` above it");

  public static final Setting<Instant> DEVICE_MIN_OCCURRED_AT =
      BRIDGE
          .string("bridge.device.min-occurred-at", "2000-01-01T00:00:00Z")
          .check("RFC 3339 date-time", Validators::rfc3339)
          .as(text -> OffsetDateTime.parse(text).toInstant())
          .doc("earliest device `occurredAt` accepted (RFC 3339); earlier is 422");

  public static final Setting<Duration> DEVICE_MAX_CLOCK_SKEW_MS =
      BRIDGE
          .millis("bridge.device.max-clock-skew-ms", 86_400_000)
          .between(0, 10L * 366 * 86_400_000)
          .doc("how far ahead of the bridge's clock a device timestamp may be; further is 422");

  private static final Keys.Group DEVICE_ACCESS =
      KEYS.group("Device authentication and rate limits");

  public static final Setting<Boolean> AUTH_ENABLED =
      DEVICE_ACCESS
          .bool("bridge.auth.enabled", true)
          .doc(
              "device requests (`.../events`, `.../events:batch`) need `Authorization: Bearer"
                  + " <token>` with a token of the credentials file, or a JWT (`bridge.auth.jwt.*`),"
                  + " that covers the path's deviceId, else `401` (`unauthenticated`) or `403`"
                  + " (`forbidden`) and nothing is written; `false` lets anyone who reaches the port"
                  + " write for any device, and logs a warning at start-up");

  public static final Setting<Optional<Path>> AUTH_CREDENTIALS_FILE =
      DEVICE_ACCESS
          .optional("bridge.auth.credentials-file")
          .as(file -> file.map(Path::of))
          .doc(
              "path of the device credentials file (format: docs/http-api.md, \"Tokens from the"
                  + " credentials file\"), e.g. a mounted Secret; required while"
                  + " `bridge.auth.enabled=true`, unless `bridge.auth.jwt.jwks-uri` is set; read at"
                  + " start-up, which fails on an unreadable file or an invalid line");

  public static final Setting<Duration> AUTH_RELOAD_INTERVAL_MS =
      DEVICE_ACCESS
          .millis("bridge.auth.reload-interval-ms", 10_000)
          .between(100, 3_600_000)
          .doc(
              "how often the credentials file is read again; a changed file replaces the"
                  + " credentials, an invalid one is logged and the previous credentials stay");

  public static final Setting<Optional<URI>> AUTH_JWT_JWKS_URI =
      DEVICE_ACCESS
          .optional("bridge.auth.jwt.jwks-uri")
          .check("https:// URL", Validators::jwksUri)
          .as(uri -> uri.map(URI::create))
          .doc(
              "URL of an identity provider's JSON Web Key Set (RFC 7517); when set, device"
                  + " requests may also carry a JWT (RFC 7519) signed with one of its keys, checked"
                  + " for `bridge.auth.jwt.issuer`, `bridge.auth.jwt.audience`, expiry and the"
                  + " devices it names; fetched at start-up (which fails when it cannot be), then"
                  + " every `bridge.auth.jwt.refresh-interval-ms` and soon after a token names an"
                  + " unknown key; unset: no JWTs");

  public static final Setting<Optional<String>> AUTH_JWT_ISSUER =
      DEVICE_ACCESS
          .optional("bridge.auth.jwt.issuer")
          .doc(
              "the `iss` a device JWT must carry, exactly; required with"
                  + " `bridge.auth.jwt.jwks-uri`");

  public static final Setting<Optional<String>> AUTH_JWT_AUDIENCE =
      DEVICE_ACCESS
          .optional("bridge.auth.jwt.audience")
          .doc(
              "a value the device JWT's `aud` must hold; required with"
                  + " `bridge.auth.jwt.jwks-uri`");

  public static final Setting<String> AUTH_JWT_DEVICES_CLAIM =
      DEVICE_ACCESS
          .string("bridge.auth.jwt.devices-claim", "sub")
          .valid(new ConfigDef.NonEmptyStringWithoutControlChars())
          .doc(
              "the JWT claim naming the devices it may send for: a string or an array of strings"
                  + " (not in `sub`, a single string by RFC 7519), each a deviceId, a prefix"
                  + " followed by `*`, or `*`; a valid JWT that does not cover the path's deviceId"
                  + " is `403`");

  public static final Setting<List<String>> AUTH_JWT_ALGORITHMS =
      DEVICE_ACCESS
          .string("bridge.auth.jwt.algorithms", "RS256,ES256")
          .check(Validators.among(Validators.ASYMMETRIC_JWS), Validators.JWT_ALGORITHMS)
          .as(Validators::names)
          .doc(
              "JWS algorithms accepted (RFC 7518 §3.1), comma-separated; asymmetric only, never"
                  + " `none` or `HS*`");

  public static final Setting<Duration> AUTH_JWT_REFRESH_INTERVAL_MS =
      DEVICE_ACCESS
          .millis("bridge.auth.jwt.refresh-interval-ms", 300_000)
          .between(1_000, 86_400_000)
          .doc(
              "how often the JWK set is fetched again; a failed fetch is logged and the keys in"
                  + " force stay");

  public static final Setting<Duration> AUTH_JWT_CLOCK_SKEW_MS =
      DEVICE_ACCESS
          .millis("bridge.auth.jwt.clock-skew-ms", 60_000)
          .between(0, 3_600_000)
          .doc("clock skew allowed on a JWT's `exp` and `nbf`, in whole seconds");

  public static final Setting<Integer> RATE_LIMIT_REQUESTS_PER_SECOND =
      DEVICE_ACCESS
          .integer("bridge.rate-limit.requests-per-second", 100)
          .between(0, 1_000_000)
          .doc(
              "requests per second one deviceId may send to the device routes on average (a token"
                  + " bucket per device); past it `429` (`rate-limited`) with `Retry-After`; a batch"
                  + " is one request; 0 disables");

  public static final Setting<Integer> RATE_LIMIT_BURST =
      DEVICE_ACCESS
          .integer("bridge.rate-limit.burst", 1_000)
          .between(1, 100_000_000)
          .doc(
              "requests one deviceId may send at once before the rate applies (the bucket's"
                  + " capacity), e.g. a backlog flushed after an outage");

  /**
   * Checked before any credential, so that a flood of made-up tokens or forged JWT signatures costs
   * no signature check; the per-device rate limit comes only after authentication.
   */
  public static final Setting<Integer> AUTH_FAILURE_LIMIT_PER_MINUTE =
      DEVICE_ACCESS
          .integer("bridge.auth.failure-limit.per-minute", 600)
          .between(0, 60_000_000)
          .doc(
              "failed authentications (401, 403) per minute one client address may have on average"
                  + " (a token bucket per address, see `bridge.http.trusted-proxies`); past it"
                  + " `429` (`authentication-throttled`) with `Retry-After` before any credential is"
                  + " checked; 0 disables (and logs a warning at start-up)");

  public static final Setting<Integer> AUTH_FAILURE_LIMIT_BURST =
      DEVICE_ACCESS
          .integer("bridge.auth.failure-limit.burst", 100)
          .between(1, 100_000_000)
          .doc(
              "failed authentications one client address may have at once (the bucket's"
                  + " capacity)");

  private static final Keys.Group HTTP_TLS = KEYS.group("HTTPS (TLS of the HTTP listener)");

  public static final Setting<Boolean> HTTP_TLS_ENABLED =
      HTTP_TLS
          .bool("bridge.http.tls.enabled", false)
          .doc(
              "the HTTP port (device routes, probes, metrics) speaks HTTPS only, with the PEM pair"
                  + " (`certificate-file`, `key-file`) or the PKCS#12 `keystore-file`; read at"
                  + " start-up, which fails (exit 2) on missing, unreadable or mismatched key"
                  + " material");

  public static final Setting<Optional<Path>> HTTP_TLS_CERTIFICATE_FILE =
      HTTP_TLS
          .optional("bridge.http.tls.certificate-file")
          .as(file -> file.map(Path::of))
          .doc(
              "PEM certificate chain, the server's certificate first (e.g. `tls.crt` of a"
                  + " Kubernetes TLS Secret); with `key-file`");

  public static final Setting<Optional<Path>> HTTP_TLS_KEY_FILE =
      HTTP_TLS
          .optional("bridge.http.tls.key-file")
          .as(file -> file.map(Path::of))
          .doc(
              "PEM private key of that certificate, unencrypted: PKCS#8 `PRIVATE KEY` (RSA or EC)"
                  + " or PKCS#1 `RSA PRIVATE KEY` (e.g. `tls.key`; cert-manager:"
                  + " `privateKey.encoding: PKCS8` for EC keys)");

  public static final Setting<Optional<Path>> HTTP_TLS_KEYSTORE_FILE =
      HTTP_TLS
          .optional("bridge.http.tls.keystore-file")
          .as(file -> file.map(Path::of))
          .doc(
              "PKCS#12 file with one private key and its certificate chain, instead of the PEM"
                  + " pair");

  public static final Setting<Optional<String>> HTTP_TLS_KEYSTORE_PASSWORD =
      HTTP_TLS
          .secret("bridge.http.tls.keystore-password")
          .doc(
              "password of the PKCS#12 file (secret; give it by environment); unset, the file"
                  + " is opened with an empty password");

  public static final Setting<List<String>> HTTP_TLS_PROTOCOLS =
      HTTP_TLS
          .string("bridge.http.tls.protocols", "TLSv1.2,TLSv1.3")
          .check(Validators.among(Validators.TLS_VERSIONS), Validators.TLS_PROTOCOLS)
          .as(Validators::names)
          .doc("TLS versions offered (RFC 8996: nothing older than 1.2)");

  public static final Setting<Duration> HTTP_TLS_RELOAD_INTERVAL_MS =
      HTTP_TLS
          .millis("bridge.http.tls.reload-interval-ms", 10_000)
          .between(100, 3_600_000)
          .doc(
              "how often the key material files are read again; changed, valid material serves"
                  + " every new connection (open ones keep theirs); invalid material is logged at"
                  + " WARN, counted (`turnstile_bridge_http_tls_reloads_total{outcome=\"failed\"}`)"
                  + " and the previous material stays");

  private static final Keys.Group SERVICEBUS =
      KEYS.group("Service Bus (the source starts only when `bridge.servicebus.entities` is set)");

  public static final Setting<String> SERVICEBUS_ENTITIES =
      SERVICEBUS
          .string("bridge.servicebus.entities", "")
          .doc(
              "comma-separated entity names (`[a-z0-9]+`), each configured under"
                  + " `bridge.servicebus.entity.<name>.*`");

  public static final Setting<Optional<String>> SERVICEBUS_CONNECTION_STRING =
      SERVICEBUS
          .secret("bridge.servicebus.connection-string")
          .doc(
              "SAS connection string (secret); one with `UseDevelopmentEmulator=true` (no TLS) is"
                  + " refused unless `bridge.servicebus.local-mode=true`");

  public static final Setting<Optional<String>> SERVICEBUS_NAMESPACE =
      SERVICEBUS
          .optional("bridge.servicebus.namespace")
          .doc(
              "fully qualified namespace (`my-ns.servicebus.windows.net`); without a connection"
                  + " string `DefaultAzureCredential` is used (workload identity on Kubernetes);"
                  + " default: the connection string's `Endpoint` host");

  public static final Setting<Boolean> SERVICEBUS_LOCAL_MODE =
      SERVICEBUS
          .bool("bridge.servicebus.local-mode", false)
          .doc("allow `UseDevelopmentEmulator=true` connection strings (tests, local runs)");

  public static final Setting<Duration> SERVICEBUS_SETTLE_TIMEOUT_MS =
      SERVICEBUS
          .millis("bridge.servicebus.settle-timeout-ms", 15_000)
          .between(100, 3_600_000)
          .doc(
              "longest wait for Kafka's ack inside a message callback; below every entity's"
                  + " lock renewal cap and at most the shutdown timeout");

  public static final Setting<Duration> SERVICEBUS_RESUME_CHECK_INTERVAL_MS =
      SERVICEBUS
          .millis("bridge.servicebus.resume-check-interval-ms", 1_000)
          .between(10, 600_000)
          .doc("how often a paused source checks whether Kafka and its topics are back");

  /** The keys of each entity, {@code bridge.servicebus.entity.<name>.<key>}. */
  public static final Keys.Group ENTITY =
      KEYS.template(SERVICEBUS_ENTITY_PREFIX, Pattern.compile("[a-z0-9]+"), SERVICEBUS_ENTITIES);

  public static final Setting<Optional<String>> ENTITY_QUEUE =
      ENTITY.optional("queue").doc("queue name; or `.topic` with `.subscription`");

  public static final Setting<Optional<String>> ENTITY_TOPIC =
      ENTITY.optional("topic").doc("topic name, with `.subscription`");

  public static final Setting<Optional<String>> ENTITY_SUBSCRIPTION =
      ENTITY.optional("subscription").doc("subscription name, with `.topic`");

  public static final Setting<Boolean> ENTITY_SESSIONS =
      ENTITY
          .bool("sessions", false)
          .doc(
              "session-enabled entity (each session slot takes one session at a time, in order;"
                  + " keying by session id keeps that order in Kafka)");

  /** The topic's name without {@link #TOPIC_PREFIX}, which is applied. */
  public static final Setting<String> ENTITY_KAFKA_TOPIC =
      ENTITY
          .string("kafka-topic", TopicCatalogue.SERVICEBUS_MESSAGES_RAW.baseName())
          .doc("Kafka topic its records go to (prefix applied)");

  public static final Setting<KeyRule> ENTITY_KEY =
      ENTITY
          .string("key", "message-id")
          .check("see meaning", KeyRule::parse)
          .as(KeyRule::parse)
          .doc(
              "Kafka record key: `session-id`, `partition-key`, `property:<name>`,"
                  + " `pointer:</json/pointer>` or `message-id`");

  public static final Setting<Boolean> ENTITY_KEY_REQUIRED =
      ENTITY
          .bool("key-required", true)
          .doc("a message without that key is dead-lettered (`MissingKey`)");

  public static final Setting<Integer> ENTITY_MAX_CONCURRENT_CALLS =
      ENTITY
          .integer("max-concurrent-calls", 1)
          .between(1, 100)
          .doc(
              "message callbacks at once; 1 with sessions (a session's messages are taken in"
                  + " order, one at a time: raise `max-concurrent-sessions`)");

  public static final Setting<Integer> ENTITY_MAX_CONCURRENT_SESSIONS =
      ENTITY
          .integer("max-concurrent-sessions", 1)
          .between(1, 100)
          .doc("sessions at once (session-enabled entities)");

  /**
   * Read by the session pump only. Short by default: the SDK processor's own idle wait, its try
   * timeout (60 s), drained a queue of many short sessions one session per slot per minute.
   */
  public static final Setting<Duration> ENTITY_SESSION_IDLE_TIMEOUT_MS =
      ENTITY
          .millis("session-idle-timeout-ms", 250)
          .between(50, 3_600_000)
          .doc(
              "how long a session slot waits for the session's next message, once the last is"
                  + " settled, before it takes the next session (session-enabled entities); a"
                  + " message that comes later is taken with its session again, in order");

  public static final Setting<Duration> ENTITY_MAX_AUTO_LOCK_RENEW_MS =
      ENTITY
          .millis("max-auto-lock-renew-ms", 300_000)
          .between(0, 86_400_000)
          .doc("lock renewal cap while a callback runs; above the settle timeout");

  public static final Setting<Integer> ENTITY_PREFETCH =
      ENTITY
          .integer("prefetch", 0)
          .between(0, 1_000)
          .doc("messages fetched ahead; their locks are not renewed: keep 0");

  public static final Setting<String> ENTITY_RECEIVE_MODE =
      ENTITY
          .string("receive-mode", "peek-lock")
          .check("`peek-lock`", Validators::peekLock)
          .doc(
              "only `peek-lock`: with `receive-and-delete` a message would be gone before Kafka"
                  + " acknowledged it");

  public static final Setting<Optional<String>> ENTITY_SCHEMA =
      ENTITY
          .optional("schema")
          .doc(
              "JSON Schema (classpath resource or file) every body must match, else dead-letter"
                  + " (`SchemaViolation`)");

  private static List<PassThrough> passThroughs() {
    ConfigDef producer = ProducerConfig.configDef();
    ConfigDef admin = AdminClientConfig.configDef();
    java.util.Map<String, String> producerOnly =
        new java.util.TreeMap<>(BridgeProducerConfig.fixedKeys());
    producerOnly.put(
        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, "set it once, as " + KAFKA_BOOTSTRAP_SERVERS);
    return List.of(
        new PassThrough(
            KAFKA_PREFIX,
            "every Kafka client of the bridge (producer and readiness admin client), e.g."
                + " security settings",
            java.util.Map.of("", List.of(producer, admin)),
            BridgeProducerConfig.fixedKeys()),
        new PassThrough(
            KAFKA_PRODUCER_PREFIX,
            "the producer only",
            java.util.Map.of("", List.of(producer)),
            producerOnly));
  }

  /** The bridge's keys (declared last: it uses every declaration above). */
  public static final ConfigModel MODEL =
      new ConfigModel("turnstile-bridge", KEYS, passThroughs(), BridgeConfigRules.ALL);
}
