package dev.turnstile.bridge.config;

import static dev.turnstile.bridge.config.BridgeConfig.*;
import static org.apache.kafka.common.config.ConfigDef.Importance.HIGH;
import static org.apache.kafka.common.config.ConfigDef.Importance.LOW;
import static org.apache.kafka.common.config.ConfigDef.Importance.MEDIUM;

import dev.turnstile.bridge.application.KeyRule;
import dev.turnstile.runtime.config.ConfigModel;
import dev.turnstile.runtime.config.PassThrough;
import dev.turnstile.runtime.config.Template;
import dev.turnstile.schemas.TopicCatalogue;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigException;

/**
 * Every configuration key of the bridge, declared once: type, default, valid values, meaning, and
 * whether it is secret ({@link Type#PASSWORD}). The README's bridge tables are generated from it.
 * Long by nature: one declaration per key, and nothing else.
 */
public final class BridgeConfigModel {

  static final String GROUP_BRIDGE = "Bridge";
  static final String GROUP_DEVICE_ACCESS = "Device authentication and rate limits";
  static final String GROUP_HTTP_TLS = "HTTPS (TLS of the HTTP listener)";
  static final String GROUP_SERVICEBUS =
      "Service Bus (the source starts only when `bridge.servicebus.entities` is set)";

  private BridgeConfigModel() {}

  private static ConfigDef keys() {
    ConfigDef d = new ConfigDef();
    String g = GROUP_BRIDGE;
    int o = 0;
    d.define(
        KAFKA_BOOTSTRAP_SERVERS,
        Type.STRING,
        ConfigDef.NO_DEFAULT_VALUE,
        new ConfigDef.NonEmptyString(),
        HIGH,
        "Kafka bootstrap servers, host:port[,host:port...]",
        g,
        ++o,
        ConfigDef.Width.LONG,
        KAFKA_BOOTSTRAP_SERVERS);
    d.define(
        TOPIC_PREFIX,
        Type.STRING,
        "",
        HIGH,
        "prefix of every topic name, e.g. `prod.`",
        g,
        ++o,
        ConfigDef.Width.SHORT,
        TOPIC_PREFIX);
    d.define(
        HTTP_HOST,
        Type.STRING,
        "0.0.0.0",
        MEDIUM,
        "interface the HTTP server binds",
        g,
        ++o,
        ConfigDef.Width.SHORT,
        HTTP_HOST);
    d.define(
        HTTP_PORT,
        Type.INT,
        8080,
        Range.between(0, 65_535),
        HIGH,
        "HTTP port of the API, probes and metrics; 0 picks any free port",
        g,
        ++o,
        ConfigDef.Width.SHORT,
        HTTP_PORT);
    d.define(
        HTTP_EVENT_LOOPS,
        Type.INT,
        0,
        Range.between(0, 1_024),
        MEDIUM,
        "HTTP server instances, each on its own Vert.x event loop (one thread), all on one port;"
            + " new connections go to them in turn. One event loop is at most one core of HTTP"
            + " work. 0: as many as the processors the JVM sees (`availableProcessors`, which"
            + " follows a container's CPU limit)",
        g,
        ++o,
        ConfigDef.Width.SHORT,
        HTTP_EVENT_LOOPS);
    d.define(
        HTTP_BODY_LIMIT_BYTES,
        Type.LONG,
        65_536L,
        Range.between(1, Integer.MAX_VALUE),
        MEDIUM,
        "largest request body in bytes; larger ones get 413",
        g,
        ++o,
        ConfigDef.Width.SHORT,
        HTTP_BODY_LIMIT_BYTES);
    d.define(
        HTTP_BATCH_MAX_EVENTS,
        Type.INT,
        1_000,
        Range.between(1, 1_000_000),
        MEDIUM,
        "most events in one `events:batch`; more is 422 (`maxItems`); at most"
            + " `bridge.kafka.max-in-flight` (checked at start-up)",
        g,
        ++o,
        ConfigDef.Width.SHORT,
        HTTP_BATCH_MAX_EVENTS);
    d.define(
        HTTP_BATCH_BODY_LIMIT_BYTES,
        Type.LONG,
        1_048_576L,
        Range.between(1, Integer.MAX_VALUE),
        MEDIUM,
        "largest `events:batch` body in bytes; larger ones get 413",
        g,
        ++o,
        ConfigDef.Width.SHORT,
        HTTP_BATCH_BODY_LIMIT_BYTES);
    d.define(
        HTTP_RETRY_AFTER_SECONDS,
        Type.INT,
        5,
        Range.between(0, 86_400),
        LOW,
        "`Retry-After` of a 503, in seconds",
        g,
        ++o,
        ConfigDef.Width.SHORT,
        HTTP_RETRY_AFTER_SECONDS);
    d.define(
        HTTP_HEADER_TIMEOUT_MS,
        Type.LONG,
        10_000L,
        Range.between(100, 3_600_000),
        MEDIUM,
        "a new connection must send its first request line and headers within this, else it is"
            + " closed (Vert.x has no request to answer before the headers are read)",
        g,
        ++o,
        ConfigDef.Width.SHORT,
        HTTP_HEADER_TIMEOUT_MS);
    d.define(
        HTTP_BODY_TIMEOUT_MS,
        Type.LONG,
        30_000L,
        Range.between(100, 3_600_000),
        MEDIUM,
        "once the headers are read, the whole body must arrive within this, else `408`"
            + " problem+json (`request-timeout`) and the connection is closed",
        g,
        ++o,
        ConfigDef.Width.SHORT,
        HTTP_BODY_TIMEOUT_MS);
    d.define(
        HTTP_IDLE_TIMEOUT_MS,
        Type.LONG,
        60_000L,
        Range.between(200, 3_600_000),
        MEDIUM,
        "no byte read or written for this long, or a keep-alive connection not sending its next"
            + " request's headers within this after the previous request: closed; must exceed"
            + " `bridge.kafka.ack-timeout-ms` (checked at start-up)",
        g,
        ++o,
        ConfigDef.Width.SHORT,
        HTTP_IDLE_TIMEOUT_MS);
    d.define(
        HTTP_MAX_CONNECTIONS,
        Type.INT,
        4_096,
        Range.between(1, 1_000_000),
        MEDIUM,
        "HTTP connections open at once; one more is closed as soon as it opens",
        g,
        ++o,
        ConfigDef.Width.SHORT,
        HTTP_MAX_CONNECTIONS);
    d.define(
        HTTP_TRUSTED_PROXIES,
        Type.STRING,
        "",
        IP_RANGES,
        MEDIUM,
        "proxies trusted to name the client in `X-Forwarded-For` (comma-separated addresses or"
            + " CIDR ranges, e.g. the ingress controller's): from one of them, the client address"
            + " is the rightmost `X-Forwarded-For` address that is not a trusted proxy; otherwise"
            + " the peer's (`X-Forwarded-For` ignored); empty: none trusted",
        g,
        ++o,
        ConfigDef.Width.LONG,
        HTTP_TRUSTED_PROXIES);
    d.define(
        KAFKA_ACK_TIMEOUT_MS,
        Type.LONG,
        10_000L,
        Range.between(100, 3_600_000),
        HIGH,
        "longest wait for Kafka's acknowledgement of a write before 503; also the producer's"
            + " `delivery.timeout.ms` and `max.block.ms`",
        g,
        ++o,
        ConfigDef.Width.SHORT,
        KAFKA_ACK_TIMEOUT_MS);
    d.define(
        KAFKA_MAX_IN_FLIGHT,
        Type.INT,
        10_000,
        Range.between(1, 1_000_000),
        MEDIUM,
        "writes awaiting their acknowledgement; past it, 503 at once",
        g,
        ++o,
        ConfigDef.Width.SHORT,
        KAFKA_MAX_IN_FLIGHT);
    d.define(
        KAFKA_READINESS_INTERVAL_MS,
        Type.LONG,
        5_000L,
        Range.between(100, 3_600_000),
        MEDIUM,
        "how often readiness checks Kafka and the topics (as the catalogue declares"
            + " them: partitions, cleanup policy)",
        g,
        ++o,
        ConfigDef.Width.SHORT,
        KAFKA_READINESS_INTERVAL_MS);
    d.define(
        DUPLICATE_CACHE_SIZE,
        Type.LONG,
        100_000L,
        Range.between(0, 100_000_000),
        MEDIUM,
        "the last this many (deviceId, eventId) Kafka acknowledged within"
            + " `bridge.duplicate-cache.ttl-ms` are answered `200 duplicate` without a second write"
            + " (the oldest forgotten first, whatever was looked up most); 0 disables. Meters"
            + " `cache_gets_total{cache=\"duplicate-cache\",result=\"hit\"|\"miss\"}`,"
            + " `cache_hit_ratio`, `cache_evictions_total`, `cache_size`",
        g,
        ++o,
        ConfigDef.Width.SHORT,
        DUPLICATE_CACHE_SIZE);
    d.define(
        DUPLICATE_CACHE_TTL_MS,
        Type.LONG,
        600_000L,
        Range.between(1, 7L * 86_400_000),
        LOW,
        "how long an acknowledged event stays in that cache",
        g,
        ++o,
        ConfigDef.Width.SHORT,
        DUPLICATE_CACHE_TTL_MS);
    d.define(
        SHUTDOWN_TIMEOUT_MS,
        Type.LONG,
        20_000L,
        Range.between(0, 600_000),
        HIGH,
        "longest drain on SIGTERM (HTTP requests, Service Bus callbacks, Kafka writes); with"
            + " Service Bus at least the settle timeout (checked at start-up); keep the pod's"
            + " `terminationGracePeriodSeconds` above it",
        g,
        ++o,
        ConfigDef.Width.SHORT,
        SHUTDOWN_TIMEOUT_MS);
    d.define(
        DEVICE_MIN_OCCURRED_AT,
        Type.STRING,
        "2000-01-01T00:00:00Z",
        RFC3339,
        MEDIUM,
        "earliest device `occurredAt` accepted (RFC 3339); earlier is 422",
        g,
        ++o,
        ConfigDef.Width.SHORT,
        DEVICE_MIN_OCCURRED_AT);
    d.define(
        DEVICE_MAX_CLOCK_SKEW_MS,
        Type.LONG,
        86_400_000L,
        Range.between(0, 10L * 366 * 86_400_000),
        MEDIUM,
        "how far ahead of the bridge's clock a device timestamp may be; further is 422",
        g,
        ++o,
        ConfigDef.Width.SHORT,
        DEVICE_MAX_CLOCK_SKEW_MS);
    g = GROUP_DEVICE_ACCESS;
    o = 0;
    d.define(
        AUTH_ENABLED,
        Type.BOOLEAN,
        true,
        HIGH,
        "device requests (`.../events`, `.../events:batch`) need `Authorization: Bearer <token>`"
            + " with a token of the credentials file, or a JWT (`bridge.auth.jwt.*`), that covers"
            + " the path's deviceId, else `401`"
            + " (`unauthenticated`) or `403` (`forbidden`) and nothing is written; `false` lets"
            + " anyone who reaches the port write for any device, and logs a warning at start-up",
        g,
        ++o,
        ConfigDef.Width.SHORT,
        AUTH_ENABLED);
    d.define(
        AUTH_CREDENTIALS_FILE,
        Type.STRING,
        null,
        HIGH,
        "path of the device credentials file (format: README, \"Device authentication and rate"
            + " limits\"), e.g. a mounted"
            + " Secret; required while `bridge.auth.enabled=true`, unless"
            + " `bridge.auth.jwt.jwks-uri` is set; read at start-up, which fails"
            + " on an unreadable file or an invalid line",
        g,
        ++o,
        ConfigDef.Width.LONG,
        AUTH_CREDENTIALS_FILE);
    d.define(
        AUTH_RELOAD_INTERVAL_MS,
        Type.LONG,
        10_000L,
        Range.between(100, 3_600_000),
        LOW,
        "how often the credentials file is read again; a changed file replaces the credentials,"
            + " an invalid one is logged and the previous credentials stay",
        g,
        ++o,
        ConfigDef.Width.SHORT,
        AUTH_RELOAD_INTERVAL_MS);
    d.define(
        AUTH_JWT_JWKS_URI,
        Type.STRING,
        null,
        JWKS_URI,
        MEDIUM,
        "URL of an identity provider's JSON Web Key Set (RFC 7517); when set, device requests may"
            + " also carry a JWT (RFC 7519) signed with one of its keys, checked for"
            + " `bridge.auth.jwt.issuer`, `bridge.auth.jwt.audience`, expiry and the devices it"
            + " names; fetched at start-up (which fails when it cannot be), then every"
            + " `bridge.auth.jwt.refresh-interval-ms` and soon after a token names an unknown key;"
            + " unset: no JWTs",
        g,
        ++o,
        ConfigDef.Width.LONG,
        AUTH_JWT_JWKS_URI);
    d.define(
        AUTH_JWT_ISSUER,
        Type.STRING,
        null,
        HIGH,
        "the `iss` a device JWT must carry, exactly; required with `bridge.auth.jwt.jwks-uri`",
        g,
        ++o,
        ConfigDef.Width.LONG,
        AUTH_JWT_ISSUER);
    d.define(
        AUTH_JWT_AUDIENCE,
        Type.STRING,
        null,
        HIGH,
        "a value the device JWT's `aud` must hold; required with `bridge.auth.jwt.jwks-uri`",
        g,
        ++o,
        ConfigDef.Width.LONG,
        AUTH_JWT_AUDIENCE);
    d.define(
        AUTH_JWT_DEVICES_CLAIM,
        Type.STRING,
        "sub",
        new ConfigDef.NonEmptyStringWithoutControlChars(),
        MEDIUM,
        "the JWT claim naming the devices it may send for: a string or an array of strings (not"
            + " in `sub`, a single string by RFC 7519), each a deviceId, a prefix followed by `*`,"
            + " or `*`; a valid JWT that does not cover the path's deviceId is `403`",
        g,
        ++o,
        ConfigDef.Width.SHORT,
        AUTH_JWT_DEVICES_CLAIM);
    d.define(
        AUTH_JWT_ALGORITHMS,
        Type.STRING,
        "RS256,ES256",
        JWT_ALGORITHMS,
        MEDIUM,
        "JWS algorithms accepted (RFC 7518 §3.1), comma-separated; asymmetric only, never `none`"
            + " or `HS*`",
        g,
        ++o,
        ConfigDef.Width.SHORT,
        AUTH_JWT_ALGORITHMS);
    d.define(
        AUTH_JWT_REFRESH_INTERVAL_MS,
        Type.LONG,
        300_000L,
        Range.between(1_000, 86_400_000),
        LOW,
        "how often the JWK set is fetched again; a failed fetch is logged and the keys in force"
            + " stay",
        g,
        ++o,
        ConfigDef.Width.SHORT,
        AUTH_JWT_REFRESH_INTERVAL_MS);
    d.define(
        AUTH_JWT_CLOCK_SKEW_MS,
        Type.LONG,
        60_000L,
        Range.between(0, 3_600_000),
        LOW,
        "clock skew allowed on a JWT's `exp` and `nbf`, in whole seconds",
        g,
        ++o,
        ConfigDef.Width.SHORT,
        AUTH_JWT_CLOCK_SKEW_MS);
    d.define(
        RATE_LIMIT_REQUESTS_PER_SECOND,
        Type.INT,
        100,
        Range.between(0, 1_000_000),
        MEDIUM,
        "requests per second one deviceId may send to the device routes on average (a token"
            + " bucket per device); past it `429` (`rate-limited`) with `Retry-After`; a batch is"
            + " one request; 0 disables",
        g,
        ++o,
        ConfigDef.Width.SHORT,
        RATE_LIMIT_REQUESTS_PER_SECOND);
    d.define(
        RATE_LIMIT_BURST,
        Type.INT,
        1_000,
        Range.between(1, 100_000_000),
        MEDIUM,
        "requests one deviceId may send at once before the rate applies (the bucket's"
            + " capacity), e.g. a backlog flushed after an outage",
        g,
        ++o,
        ConfigDef.Width.SHORT,
        RATE_LIMIT_BURST);
    d.define(
        AUTH_FAILURE_LIMIT_PER_MINUTE,
        Type.INT,
        600,
        Range.between(0, 60_000_000),
        MEDIUM,
        "failed authentications (401, 403) per minute one client address may have on average (a"
            + " token bucket per address, see `bridge.http.trusted-proxies`); past it `429`"
            + " (`authentication-throttled`) with `Retry-After` before any credential is checked;"
            + " 0 disables",
        g,
        ++o,
        ConfigDef.Width.SHORT,
        AUTH_FAILURE_LIMIT_PER_MINUTE);
    d.define(
        AUTH_FAILURE_LIMIT_BURST,
        Type.INT,
        100,
        Range.between(1, 100_000_000),
        MEDIUM,
        "failed authentications one client address may have at once (the bucket's capacity)",
        g,
        ++o,
        ConfigDef.Width.SHORT,
        AUTH_FAILURE_LIMIT_BURST);
    g = GROUP_HTTP_TLS;
    o = 0;
    d.define(
        HTTP_TLS_ENABLED,
        Type.BOOLEAN,
        false,
        HIGH,
        "the HTTP port (device routes, probes, metrics) speaks HTTPS only, with the PEM pair"
            + " (`certificate-file`, `key-file`) or the PKCS#12 `keystore-file`; read at start-up,"
            + " which fails (exit 2) on missing, unreadable or mismatched key material",
        g,
        ++o,
        ConfigDef.Width.SHORT,
        HTTP_TLS_ENABLED);
    d.define(
        HTTP_TLS_CERTIFICATE_FILE,
        Type.STRING,
        null,
        HIGH,
        "PEM certificate chain, the server's certificate first (e.g. `tls.crt` of a Kubernetes"
            + " TLS Secret); with `key-file`",
        g,
        ++o,
        ConfigDef.Width.LONG,
        HTTP_TLS_CERTIFICATE_FILE);
    d.define(
        HTTP_TLS_KEY_FILE,
        Type.STRING,
        null,
        HIGH,
        "PEM private key of that certificate, unencrypted: PKCS#8 `PRIVATE KEY` (RSA or EC) or"
            + " PKCS#1 `RSA PRIVATE KEY` (e.g. `tls.key`; cert-manager: `privateKey.encoding:"
            + " PKCS8` for EC keys)",
        g,
        ++o,
        ConfigDef.Width.LONG,
        HTTP_TLS_KEY_FILE);
    d.define(
        HTTP_TLS_KEYSTORE_FILE,
        Type.STRING,
        null,
        HIGH,
        "PKCS#12 file with one private key and its certificate chain, instead of the PEM pair",
        g,
        ++o,
        ConfigDef.Width.LONG,
        HTTP_TLS_KEYSTORE_FILE);
    d.define(
        HTTP_TLS_KEYSTORE_PASSWORD,
        Type.PASSWORD,
        null,
        HIGH,
        "password of the PKCS#12 file (secret; give it by environment); default: empty",
        g,
        ++o,
        ConfigDef.Width.LONG,
        HTTP_TLS_KEYSTORE_PASSWORD);
    d.define(
        HTTP_TLS_PROTOCOLS,
        Type.STRING,
        "TLSv1.2,TLSv1.3",
        TLS_PROTOCOLS,
        MEDIUM,
        "TLS versions offered (RFC 8996: nothing older than 1.2)",
        g,
        ++o,
        ConfigDef.Width.SHORT,
        HTTP_TLS_PROTOCOLS);
    d.define(
        HTTP_TLS_RELOAD_INTERVAL_MS,
        Type.LONG,
        10_000L,
        Range.between(100, 3_600_000),
        LOW,
        "how often the key material files are read again; changed, valid material serves every"
            + " new connection (open ones keep theirs); invalid material is logged at WARN,"
            + " counted (`turnstile_bridge_http_tls_reloads_total{outcome=\"failed\"}`) and the"
            + " previous material stays",
        g,
        ++o,
        ConfigDef.Width.SHORT,
        HTTP_TLS_RELOAD_INTERVAL_MS);
    g = GROUP_SERVICEBUS;
    o = 0;
    d.define(
        SERVICEBUS_ENTITIES,
        Type.STRING,
        "",
        MEDIUM,
        "comma-separated entity names (`[a-z0-9]+`), each configured under"
            + " `bridge.servicebus.entity.<name>.*`",
        g,
        ++o,
        ConfigDef.Width.LONG,
        SERVICEBUS_ENTITIES);
    d.define(
        SERVICEBUS_CONNECTION_STRING,
        Type.PASSWORD,
        null,
        HIGH,
        "SAS connection string (secret); one with `UseDevelopmentEmulator=true` (no TLS) is"
            + " refused unless `bridge.servicebus.local-mode=true`",
        g,
        ++o,
        ConfigDef.Width.LONG,
        SERVICEBUS_CONNECTION_STRING);
    d.define(
        SERVICEBUS_NAMESPACE,
        Type.STRING,
        null,
        HIGH,
        "fully qualified namespace (`my-ns.servicebus.windows.net`); without a connection"
            + " string `DefaultAzureCredential` is used (workload identity on Kubernetes);"
            + " default: the connection string's `Endpoint` host",
        g,
        ++o,
        ConfigDef.Width.LONG,
        SERVICEBUS_NAMESPACE);
    d.define(
        SERVICEBUS_LOCAL_MODE,
        Type.BOOLEAN,
        false,
        LOW,
        "allow `UseDevelopmentEmulator=true` connection strings (tests, local runs)",
        g,
        ++o,
        ConfigDef.Width.SHORT,
        SERVICEBUS_LOCAL_MODE);
    d.define(
        SERVICEBUS_SETTLE_TIMEOUT_MS,
        Type.LONG,
        15_000L,
        Range.between(100, 3_600_000),
        HIGH,
        "longest wait for Kafka's ack inside a message callback; below every entity's"
            + " lock renewal cap and at most the shutdown timeout",
        g,
        ++o,
        ConfigDef.Width.SHORT,
        SERVICEBUS_SETTLE_TIMEOUT_MS);
    d.define(
        SERVICEBUS_RESUME_CHECK_INTERVAL_MS,
        Type.LONG,
        1_000L,
        Range.between(10, 600_000),
        LOW,
        "how often a paused source checks whether Kafka and its topics are back",
        g,
        ++o,
        ConfigDef.Width.SHORT,
        SERVICEBUS_RESUME_CHECK_INTERVAL_MS);
    return d;
  }

  private static Template entities() {
    ConfigDef d = new ConfigDef();
    d.define(
        ENTITY_QUEUE, Type.STRING, null, HIGH, "queue name; or `.topic` with" + " `.subscription`");
    d.define(ENTITY_TOPIC, Type.STRING, null, HIGH, "topic name, with `.subscription`");
    d.define(ENTITY_SUBSCRIPTION, Type.STRING, null, HIGH, "subscription name, with `.topic`");
    d.define(
        ENTITY_SESSIONS,
        Type.BOOLEAN,
        false,
        MEDIUM,
        "session-enabled entity (session processor; keying by session id keeps order)");
    d.define(
        ENTITY_KAFKA_TOPIC,
        Type.STRING,
        TopicCatalogue.SERVICEBUS_MESSAGES_RAW.baseName(),
        MEDIUM,
        "Kafka topic its records go to (prefix applied)");
    d.define(
        ENTITY_KEY,
        Type.STRING,
        "message-id",
        KEY_RULE,
        MEDIUM,
        "Kafka record key: `session-id`, `partition-key`, `property:<name>`,"
            + " `pointer:</json/pointer>` or `message-id`");
    d.define(
        ENTITY_KEY_REQUIRED,
        Type.BOOLEAN,
        true,
        MEDIUM,
        "a message without that key is dead-lettered (`MissingKey`)");
    d.define(
        ENTITY_MAX_CONCURRENT_CALLS,
        Type.INT,
        1,
        Range.between(1, 100),
        MEDIUM,
        "message callbacks at once (per session with sessions)");
    d.define(
        ENTITY_MAX_CONCURRENT_SESSIONS,
        Type.INT,
        1,
        Range.between(1, 100),
        MEDIUM,
        "sessions at once (session-enabled entities)");
    d.define(
        ENTITY_MAX_AUTO_LOCK_RENEW_MS,
        Type.LONG,
        300_000L,
        Range.between(0, 86_400_000),
        MEDIUM,
        "lock renewal cap while a callback runs; above the settle timeout");
    d.define(
        ENTITY_PREFETCH,
        Type.INT,
        0,
        Range.between(0, 1_000),
        LOW,
        "messages fetched ahead; their locks are not renewed: keep 0");
    d.define(
        ENTITY_RECEIVE_MODE,
        Type.STRING,
        "peek-lock",
        PEEK_LOCK_ONLY,
        HIGH,
        "only `peek-lock`: with `receive-and-delete` a message would be gone before Kafka"
            + " acknowledged it");
    d.define(
        ENTITY_SCHEMA,
        Type.STRING,
        null,
        LOW,
        "JSON Schema (classpath resource or file) every body must match, else dead-letter"
            + " (`SchemaViolation`)");
    return new Template(
        SERVICEBUS_ENTITY_PREFIX, Pattern.compile("[a-z0-9]+"), SERVICEBUS_ENTITIES, d);
  }

  /** Producer keys the bridge sets itself: its delivery guarantee and bounds depend on them. */
  static final Map<String, String> FIXED_PRODUCER =
      Map.of(
          ProducerConfig.ACKS_CONFIG,
          "fixed at all: a 2xx or a Service Bus complete means every in-sync replica has the record",
          ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG,
          "fixed at true: a producer retry must not duplicate or reorder records",
          ProducerConfig.TRANSACTIONAL_ID_CONFIG,
          "the bridge's producer is idempotent, not transactional",
          ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG,
          "derived from " + KAFKA_ACK_TIMEOUT_MS,
          ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG,
          "derived from " + KAFKA_ACK_TIMEOUT_MS,
          ProducerConfig.MAX_BLOCK_MS_CONFIG,
          "derived from " + KAFKA_ACK_TIMEOUT_MS,
          ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG,
          "set by the bridge",
          ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG,
          "set by the bridge");

  private static List<PassThrough> passThroughs() {
    ConfigDef producer = ProducerConfig.configDef();
    ConfigDef admin = AdminClientConfig.configDef();
    Map<String, String> producerOnly = new java.util.HashMap<>(FIXED_PRODUCER);
    producerOnly.put(
        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, "set it once, as " + KAFKA_BOOTSTRAP_SERVERS);
    return List.of(
        new PassThrough(
            KAFKA_PREFIX,
            "every Kafka client of the bridge (producer and readiness admin client), e.g."
                + " security settings",
            PassThrough.anyOf(producer, admin),
            PassThrough.names(producer, admin),
            FIXED_PRODUCER),
        new PassThrough(
            KAFKA_PRODUCER_PREFIX,
            "the producer only",
            PassThrough.anyOf(producer),
            PassThrough.names(producer),
            producerOnly));
  }

  private static final ConfigDef.Validator RFC3339 =
      new ConfigDef.Validator() {
        @Override
        public void ensureValid(String name, Object value) {
          try {
            OffsetDateTime.parse(((String) value).trim());
          } catch (DateTimeParseException e) {
            throw new ConfigException(name, value, "must be an RFC 3339 date-time with an offset");
          }
        }

        @Override
        public String toString() {
          return "RFC 3339 date-time";
        }
      };

  private static final ConfigDef.Validator KEY_RULE =
      new ConfigDef.Validator() {
        @Override
        public void ensureValid(String name, Object value) {
          try {
            KeyRule.parse((String) value);
          } catch (IllegalArgumentException e) {
            throw new ConfigException(name, value, e.getMessage());
          }
        }

        @Override
        public String toString() {
          return "see meaning";
        }
      };

  /**
   * Comma-separated IP addresses or CIDR ranges, as literals only: a name would need a DNS look-up,
   * and what it resolves to can change.
   */
  private static final ConfigDef.Validator IP_RANGES =
      new ConfigDef.Validator() {
        @Override
        public void ensureValid(String name, Object value) {
          for (String range : names((String) value)) {
            if (!IP_RANGE.matcher(range).matches()) {
              throw new ConfigException(
                  name, value, range + " is not an IP address or CIDR range (a literal, no name)");
            }
            int slash = range.indexOf('/');
            int bits = range.contains(":") ? 128 : 32;
            if (slash > 0 && Integer.parseInt(range.substring(slash + 1)) > bits) {
              throw new ConfigException(name, value, range + ": the prefix is over " + bits);
            }
          }
        }

        @Override
        public String toString() {
          return "IP addresses and CIDR ranges";
        }
      };

  private static final Pattern IP_RANGE =
      Pattern.compile(
          "(?:(?:25[0-5]|2[0-4]\\d|1?\\d?\\d)(?:\\.(?:25[0-5]|2[0-4]\\d|1?\\d?\\d)){3}"
              + "|[0-9A-Fa-f:]*:[0-9A-Fa-f:.]*)(?:/\\d{1,3})?");

  /** A comma-separated list ({@code "TLSv1.2, TLSv1.3"}) as its names; blanks dropped. */
  static List<String> names(String commaSeparated) {
    return java.util.Arrays.stream(commaSeparated.split(","))
        .map(String::strip)
        .filter(p -> !p.isEmpty())
        .toList();
  }

  private static final ConfigDef.Validator TLS_PROTOCOLS =
      namesAmong(
          List.of("TLSv1.2", "TLSv1.3"),
          "TLS version",
          "is not offered",
          "RFC 8996 deprecates older");

  /** JWS algorithms a device JWT may be signed with: asymmetric only (RFC 7518 §3.1). */
  static final List<String> ASYMMETRIC_JWS =
      List.of("RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512");

  private static final ConfigDef.Validator JWT_ALGORITHMS =
      namesAmong(
          ASYMMETRIC_JWS,
          "JWS algorithm",
          "is not accepted",
          "a JWK set holds public keys; none and HS* would let anyone sign");

  /**
   * A comma-separated list ({@link #names}) of at least one name, each of {@code allowed}; a name
   * that is not is refused as "{@code <name> <refusal>: only <allowed> (<why>)}".
   */
  private static ConfigDef.Validator namesAmong(
      List<String> allowed, String what, String refusal, String why) {
    return new ConfigDef.Validator() {
      @Override
      public void ensureValid(String name, Object value) {
        List<String> names = names((String) value);
        if (names.isEmpty()) {
          throw new ConfigException(name, value, "name at least one " + what);
        }
        for (String given : names) {
          if (!allowed.contains(given)) {
            throw new ConfigException(
                name,
                value,
                given + " " + refusal + ": only " + String.join(", ", allowed) + " (" + why + ")");
          }
        }
      }

      @Override
      public String toString() {
        return "`" + String.join("`, `", allowed) + "`";
      }
    };
  }

  /**
   * Blank (no JWTs), or an absolute {@code https://} URL without user info; {@code http://} only to
   * a loopback host, since whoever can change the set in transit can sign for every device.
   */
  private static final ConfigDef.Validator JWKS_URI =
      new ConfigDef.Validator() {
        @Override
        public void ensureValid(String name, Object value) {
          if (value == null || ((String) value).isBlank()) {
            return;
          }
          java.net.URI uri;
          try {
            uri = new java.net.URI(((String) value).strip());
          } catch (java.net.URISyntaxException e) {
            throw new ConfigException(name, "[not shown]", "not a URI: " + e.getReason());
          }
          String scheme = String.valueOf(uri.getScheme()).toLowerCase(Locale.ROOT);
          if (!scheme.equals("https") && !scheme.equals("http") || uri.getHost() == null) {
            throw new ConfigException(name, value, "must be an https:// URL");
          }
          if (uri.getRawUserInfo() != null) {
            throw new ConfigException(
                name,
                "[not shown]",
                "must hold no user info: a JWK set is public, and the JDK's HTTP client would"
                    + " not send it");
          }
          if (scheme.equals("http") && !isLoopback(uri.getHost())) {
            throw new ConfigException(
                name,
                value,
                "must be https:// (http:// only to a loopback host): whoever can change the key"
                    + " set in transit can sign tokens for every device");
          }
        }

        @Override
        public String toString() {
          return "https:// URL";
        }
      };

  private static boolean isLoopback(String host) {
    return host.equals("localhost")
        || host.startsWith("127.")
        || host.equals("[::1]")
        || host.equals("::1");
  }

  private static final ConfigDef.Validator PEEK_LOCK_ONLY =
      new ConfigDef.Validator() {
        @Override
        public void ensureValid(String name, Object value) {
          if (!"peek-lock".equals(((String) value).trim().toLowerCase(Locale.ROOT))) {
            throw new ConfigException(
                name,
                value,
                "must be peek-lock: with receive-and-delete a message is gone from Service Bus"
                    + " before Kafka acknowledged it, so a Kafka failure would lose it");
          }
        }

        @Override
        public String toString() {
          return "`peek-lock`";
        }
      };

  /** The bridge's keys (declared last: it uses the validators above). */
  public static final ConfigModel MODEL =
      new ConfigModel("turnstile-bridge", keys(), List.of(entities()), passThroughs());
}
