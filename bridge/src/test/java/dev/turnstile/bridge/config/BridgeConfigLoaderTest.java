package dev.turnstile.bridge.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.turnstile.runtime.config.InvalidConfigurationException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class BridgeConfigLoaderTest {

  @TempDir Path dir;

  @Test
  void environmentWinsOverTheFile() throws Exception {
    Path file = dir.resolve("bridge.properties");
    Files.writeString(
        file,
        "kafka.bootstrap.servers=file:9092\nbridge.http.port=9000\n"
            + "bridge.auth.credentials-file=/run/secrets/device-credentials\n"
            + "bridge.http.body-limit-bytes=1000\nkafka.producer.batch.size=1234\n");

    BridgeConfig config =
        BridgeConfigLoader.load(
            file,
            Map.of(
                "TURNSTILE_BRIDGE_HTTP_PORT", "9001",
                "TURNSTILE_BRIDGE_HTTP_BODY_LIMIT_BYTES", "2000",
                "TURNSTILE_KAFKA_PRODUCER_LINGER_MS", "20",
                "OTHER_VARIABLE", "ignored"));

    assertThat(config.get(BridgeConfigModel.HTTP_PORT)).isEqualTo(9001);
    assertThat(config.get(BridgeConfigModel.HTTP_BODY_LIMIT_BYTES)).isEqualTo(2000);
    assertThat(config.get(BridgeConfigModel.KAFKA_BOOTSTRAP_SERVERS)).isEqualTo("file:9092");
    assertThat(config.producerProperties())
        .containsEntry("bootstrap.servers", "file:9092")
        .containsEntry("batch.size", "1234")
        .containsEntry("linger.ms", "20");
  }

  @Test
  void defaultsApplyWhenOnlyTheBootstrapIsGiven() {
    BridgeConfig config =
        BridgeConfigLoader.fromMap(
            Map.of("kafka.bootstrap.servers", "k:9092", "bridge.auth.credentials-file", "creds"));

    assertThat(config.get(BridgeConfigModel.HTTP_HOST)).isEqualTo("0.0.0.0");
    assertThat(config.get(BridgeConfigModel.HTTP_PORT)).isEqualTo(8080);
    assertThat(config.get(BridgeConfigModel.TOPIC_PREFIX)).isEmpty();
    assertThat(config.get(BridgeConfigModel.HTTP_BODY_LIMIT_BYTES)).isEqualTo(65_536);
    assertThat(config.get(BridgeConfigModel.KAFKA_ACK_TIMEOUT_MS))
        .isEqualTo(Duration.ofSeconds(10));
    assertThat(config.get(BridgeConfigModel.KAFKA_MAX_IN_FLIGHT)).isEqualTo(10_000);
  }

  @Test
  void aBadValueNamesItsKey() {
    assertThatThrownBy(() -> withRequired("bridge.http.port", "eighty"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("bridge.http.port");
    assertThatThrownBy(() -> withRequired("bridge.kafka.max-in-flight", "0"))
        .hasMessageContaining("bridge.kafka.max-in-flight");
    assertThatThrownBy(() -> BridgeConfigLoader.fromMap(Map.of()))
        .hasMessageContaining("kafka.bootstrap.servers");
  }

  @Test
  void failedAuthenticationsAreLimitedPerAddressAndTrustedProxiesAreLiteralRanges() {
    BridgeConfig defaults =
        BridgeConfigLoader.fromMap(
            Map.of("kafka.bootstrap.servers", "k:9092", "bridge.auth.credentials-file", "creds"));
    assertThat(defaults.deviceAuth().failureLimit())
        .isEqualTo(new BridgeConfig.FailureLimit(600, 100));
    assertThat(defaults.get(BridgeConfigModel.HTTP_TRUSTED_PROXIES)).isEmpty();

    BridgeConfig set =
        withRequired(
            "bridge.http.trusted-proxies",
            " 10.0.0.0/8, 192.0.2.7 ,2001:db8::/32",
            "bridge.auth.failure-limit.per-minute",
            "0");
    assertThat(set.get(BridgeConfigModel.HTTP_TRUSTED_PROXIES))
        .containsExactly("10.0.0.0/8", "192.0.2.7", "2001:db8::/32");
    assertThat(set.deviceAuth().failureLimit().enabled()).isFalse();

    for (String bad :
        List.of("ingress.example", "10.0.0.0/33", "300.1.1.1", "::1/129", "1::2::3")) {
      assertThatThrownBy(() -> withRequired("bridge.http.trusted-proxies", bad))
          .as(bad)
          .hasMessageContaining("bridge.http.trusted-proxies");
    }
  }

  @Test
  void httpConnectionLimitsHaveDefaultsAndTheIdleTimeoutMustOutwaitKafka() {
    var limits =
        BridgeConfigLoader.fromMap(
                Map.of(
                    "kafka.bootstrap.servers", "k:9092", "bridge.auth.credentials-file", "creds"))
            .connectionLimits();
    assertThat(limits.headerTimeout()).isEqualTo(Duration.ofSeconds(10));
    assertThat(limits.bodyTimeout()).isEqualTo(Duration.ofSeconds(30));
    assertThat(limits.idleTimeout()).isEqualTo(Duration.ofSeconds(60));
    assertThat(limits.maxConnections()).isEqualTo(4096);

    assertThatThrownBy(
            () ->
                withRequired(
                    "bridge.http.idle-timeout-ms", "10000", "bridge.kafka.ack-timeout-ms", "10000"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("bridge.http.idle-timeout-ms")
        .hasMessageContaining("bridge.kafka.ack-timeout-ms");
  }

  @Test
  void theHttpServerRunsOnAsManyEventLoopsAsProcessorsUnlessSetOtherwise() {
    assertThat(
            BridgeConfigLoader.fromMap(
                    Map.of(
                        "kafka.bootstrap.servers",
                        "k:9092",
                        "bridge.auth.credentials-file",
                        "creds"))
                .get(BridgeConfigModel.HTTP_EVENT_LOOPS))
        .isEqualTo(Runtime.getRuntime().availableProcessors());
    assertThat(
            BridgeConfigLoader.load(
                    null,
                    Map.of(
                        "TURNSTILE_KAFKA_BOOTSTRAP_SERVERS", "k:9092",
                        "TURNSTILE_BRIDGE_AUTH_ENABLED", "false",
                        "TURNSTILE_BRIDGE_HTTP_EVENT_LOOPS", "3"))
                .get(BridgeConfigModel.HTTP_EVENT_LOOPS))
        .isEqualTo(3);
    assertThatThrownBy(() -> withRequired("bridge.http.event-loops", "-1"))
        .hasMessageContaining("bridge.http.event-loops");
  }

  @Test
  void aBatchMayNotHoldMoreEventsThanMayBeInFlight() {
    var defaults =
        BridgeConfigLoader.fromMap(
            Map.of("kafka.bootstrap.servers", "k:9092", "bridge.auth.credentials-file", "creds"));
    assertThat(defaults.get(BridgeConfigModel.HTTP_BATCH_MAX_EVENTS)).isEqualTo(1_000);
    assertThat(defaults.get(BridgeConfigModel.HTTP_BATCH_BODY_LIMIT_BYTES)).isEqualTo(1_048_576);
    assertThatThrownBy(
            () ->
                withRequired(
                    "bridge.kafka.max-in-flight", "100", "bridge.http.batch.max-events", "101"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("bridge.http.batch.max-events")
        .hasMessageContaining("bridge.kafka.max-in-flight");
  }

  @Test
  void secretsAreMaskedInToString() {
    BridgeConfig config =
        withRequired(
            "kafka.sasl.jaas.config",
            "PlainLoginModule password=\"hunter2\"",
            "kafka.producer.ssl.key.password",
            "s3cret");

    assertThat(config.toString())
        .doesNotContain("hunter2")
        .doesNotContain("s3cret")
        .contains("sasl.jaas.config=[hidden]")
        .contains("bootstrap.servers=k:9092");
  }

  @Test
  void environmentNamesMapToKeys() {
    assertThat(BridgeConfigLoader.keyOf("TURNSTILE_BRIDGE_HTTP_PORT"))
        .isEqualTo("bridge.http.port");
    assertThat(BridgeConfigLoader.keyOf("TURNSTILE_BRIDGE_DUPLICATE_CACHE_TTL_MS"))
        .isEqualTo("bridge.duplicate-cache.ttl-ms");
    assertThat(BridgeConfigLoader.keyOf("TURNSTILE_KAFKA_PRODUCER_SASL_JAAS_CONFIG"))
        .isEqualTo("kafka.producer.sasl.jaas.config");
    assertThat(BridgeConfigLoader.keyOf("HOME")).isNull();
  }

  @Test
  void theDeviceTimestampWindowHasDefaultsAndIsSetByKeyOrEnvironment() {
    BridgeConfig defaults =
        BridgeConfigLoader.fromMap(
            Map.of("kafka.bootstrap.servers", "k:9092", "bridge.auth.credentials-file", "creds"));
    assertThat(defaults.get(BridgeConfigModel.DEVICE_MIN_OCCURRED_AT))
        .isEqualTo(Instant.parse("2000-01-01T00:00:00Z"));
    assertThat(defaults.get(BridgeConfigModel.DEVICE_MAX_CLOCK_SKEW_MS))
        .isEqualTo(Duration.ofDays(1));

    BridgeConfig set =
        BridgeConfigLoader.load(
            null,
            Map.of(
                "TURNSTILE_KAFKA_BOOTSTRAP_SERVERS",
                "k:9092",
                "TURNSTILE_BRIDGE_AUTH_ENABLED",
                "false",
                "TURNSTILE_BRIDGE_DEVICE_MIN_OCCURRED_AT",
                "2010-01-01T01:00:00+01:00",
                "TURNSTILE_BRIDGE_DEVICE_MAX_CLOCK_SKEW_MS",
                "60000"));
    assertThat(set.get(BridgeConfigModel.DEVICE_MIN_OCCURRED_AT))
        .isEqualTo(Instant.parse("2010-01-01T00:00:00Z"));
    assertThat(set.get(BridgeConfigModel.DEVICE_MAX_CLOCK_SKEW_MS))
        .isEqualTo(Duration.ofMinutes(1));

    assertThatThrownBy(() -> withRequired("bridge.device.min-occurred-at", "2010-01-01"))
        .hasMessageContaining("bridge.device.min-occurred-at");
  }

  @Test
  void anUnknownKeyIsRefusedWithTheNearestKnownOne() {
    assertThatThrownBy(() -> withRequired("bridge.http.prot", "8081"))
        .isInstanceOf(InvalidConfigurationException.class)
        .hasMessage("bridge.http.prot: unknown key; did you mean bridge.http.port?");
    assertThatThrownBy(
            () ->
                BridgeConfigLoader.load(
                    null,
                    Map.of(
                        "TURNSTILE_KAFKA_BOOTSTRAP_SERVERS", "k:9092",
                        "TURNSTILE_BRIDGE_AUTH_ENABLED", "false",
                        "TURNSTILE_BRIDGE_HTTP_PROT", "8081")))
        .hasMessage(
            "TURNSTILE_BRIDGE_HTTP_PROT: sets no known key; did you mean"
                + " TURNSTILE_BRIDGE_HTTP_PORT?");
    assertThatThrownBy(() -> withRequired("kafka.producer.lingr.ms", "5"))
        .hasMessage(
            "kafka.producer.lingr.ms: not a setting of the producer only; did you mean"
                + " kafka.producer.linger.ms?");
  }

  /** Per-key problems and the rules between keys (here: no device credentials) together. */
  @Test
  void everyProblemIsReportedAtOnce() {
    assertThatThrownBy(
            () ->
                BridgeConfigLoader.fromMap(
                    Map.of(
                        "bridge.http.port", "70000",
                        "bridge.kafka.ack-timeout-ms", "soon",
                        "kafka.producer.batch.size", "big")))
        .isInstanceOfSatisfying(
            InvalidConfigurationException.class,
            e ->
                assertThat(e.problems())
                    .containsExactly(
                        "bridge.auth.credentials-file: must be set while bridge.auth.enabled is"
                            + " true (the default), unless bridge.auth.jwt.jwks-uri is: the file"
                            + " of device credentials (`turnstile device-token` makes them); set"
                            + " bridge.auth.enabled=false to accept unauthenticated device"
                            + " requests",
                        "bridge.http.port: invalid value '70000': Value must be no more than"
                            + " 65535",
                        "bridge.kafka.ack-timeout-ms: invalid value 'soon': Not a number of type"
                            + " LONG",
                        "kafka.bootstrap.servers: is required",
                        "kafka.producer.batch.size: invalid value 'big': Not a number of type"
                            + " INT"));
  }

  /** The rules between keys do not stop at the first one broken (issue 23). */
  @Test
  void everyBrokenRuleBetweenKeysIsReportedTogether() {
    Map<String, String> values = new java.util.HashMap<>();
    values.put("kafka.bootstrap.servers", "k:9092");
    values.put("bridge.http.idle-timeout-ms", "5000");
    values.put("bridge.http.batch.max-events", "20000");
    values.put("bridge.http.tls.enabled", "true");
    values.put("bridge.auth.jwt.jwks-uri", "https://idp.example/jwks.json");
    values.put("bridge.servicebus.entities", "billing");
    values.put("bridge.servicebus.namespace", "ns.servicebus.windows.net");
    values.put("bridge.servicebus.entity.billing.queue", "billing");
    values.put("bridge.servicebus.entity.billing.max-auto-lock-renew-ms", "15000");
    assertThatThrownBy(() -> BridgeConfigLoader.fromMap(values))
        .isInstanceOfSatisfying(
            InvalidConfigurationException.class,
            e ->
                assertThat(e.problems())
                    .extracting(problem -> problem.substring(0, problem.indexOf(':')))
                    .containsExactly(
                        "bridge.auth.jwt.audience",
                        "bridge.auth.jwt.issuer",
                        "bridge.http.batch.max-events",
                        "bridge.http.idle-timeout-ms",
                        "bridge.http.tls.certificate-file",
                        "bridge.servicebus.settle-timeout-ms"));
  }

  /**
   * Issue 8 case 9: nothing may weaken acks=all or idempotence, whatever prefix it comes by; nor
   * move keyed records off Kafka's default placement, which the topology relies on
   * (BridgeProducerConfig). Each with the reason its fixed key gives.
   */
  @ParameterizedTest(name = "{0}")
  @CsvSource({
    "kafka.acks, fixed at all",
    "kafka.producer.acks, fixed at all",
    "kafka.enable.idempotence, fixed at true",
    "kafka.producer.enable.idempotence, fixed at true",
    "kafka.producer.delivery.timeout.ms, derived from",
    "kafka.producer.transactional.id, the bridge's producer is idempotent",
    "kafka.partitioner.class, fixed at Kafka's default",
    "kafka.producer.partitioner.class, fixed at Kafka's default",
    "kafka.partitioner.ignore.keys, fixed at Kafka's default",
    "kafka.producer.partitioner.ignore.keys, fixed at Kafka's default"
  })
  void keysTheBridgeFixesAreRefusedByNameWithTheirReason(String key, String reason) {
    assertThatThrownBy(() -> withRequired(key, "1"))
        .hasMessageStartingWith(key + ": cannot be set: " + reason);
  }

  /** Every producer key the bridge fixes, under both prefixes that reach its producer. */
  @Test
  void everyFixedProducerKeyIsRefusedWithItsReason() {
    BridgeProducerConfig.fixedKeys()
        .forEach(
            (key, reason) -> {
              for (String prefixed : java.util.List.of("kafka." + key, "kafka.producer." + key)) {
                assertThatThrownBy(() -> withRequired(prefixed, "1"))
                    .as(prefixed)
                    .hasMessageStartingWith(prefixed + ": cannot be set: ");
              }
            });
  }

  @Test
  void secretsAreNeverEchoedInProblems() {
    assertThatThrownBy(
            () ->
                withRequired(
                    "bridge.servicebus.entities",
                    "billing",
                    "bridge.servicebus.entity.billing.queue",
                    "billing",
                    "bridge.servicebus.connection-string",
                    "Endpoint=sb://x/;SharedAccessKey=hunter2;UseDevelopmentEmulator=true"))
        .hasMessageContaining("bridge.servicebus.connection-string")
        .hasMessageNotContaining("hunter2");
    assertThat(BridgeConfigModel.MODEL.isSecret("bridge.servicebus.connection-string")).isTrue();
    assertThat(BridgeConfigModel.MODEL.isSecret("kafka.producer.ssl.keystore.password")).isTrue();
    assertThat(BridgeConfigModel.MODEL.isSecret("kafka.producer.key.serializer")).isFalse();
    assertThat(BridgeConfigModel.MODEL.isSecret("bridge.servicebus.entity.billing.key")).isFalse();
    BridgeConfig.HttpTls tls =
        BridgeConfigLoader.fromMap(
                Map.of(
                    "kafka.bootstrap.servers", "k:9092",
                    "bridge.auth.enabled", "false",
                    "bridge.http.tls.enabled", "true",
                    "bridge.http.tls.keystore-file", "server.p12",
                    "bridge.http.tls.keystore-password", "hunter2"))
            .tls();
    assertThat(tls.keystorePassword().value()).isEqualTo("hunter2");
    assertThat(tls.toString()).contains("server.p12").doesNotContain("hunter2");
  }

  @Test
  void deviceAuthenticationIsOnByDefaultAndNeedsACredentialsFile() {
    assertThatThrownBy(
            () -> BridgeConfigLoader.fromMap(Map.of("kafka.bootstrap.servers", "k:9092")))
        .isInstanceOf(InvalidConfigurationException.class)
        .hasMessageContaining(
            "bridge.auth.credentials-file: must be set while bridge.auth.enabled");

    BridgeConfig on =
        BridgeConfigLoader.fromMap(
            Map.of("kafka.bootstrap.servers", "k:9092", "bridge.auth.credentials-file", "/s/c"));
    assertThat(on.deviceAuth().enabled()).isTrue();
    assertThat(on.deviceAuth().credentialsFile()).isEqualTo(Path.of("/s/c"));
    assertThat(on.deviceAuth().reloadInterval()).isEqualTo(Duration.ofSeconds(10));
    assertThat(on.rateLimit()).isEqualTo(new BridgeConfig.RateLimit(100, 1_000));
    assertThat(on.rateLimit().enabled()).isTrue();

    BridgeConfig off =
        BridgeConfigLoader.fromMap(
            Map.of(
                "kafka.bootstrap.servers", "k:9092",
                "bridge.auth.enabled", "false",
                "bridge.rate-limit.requests-per-second", "0"));
    assertThat(off.deviceAuth().enabled()).isFalse();
    assertThat(off.deviceAuth().credentialsFile()).isNull();
    assertThat(off.rateLimit().enabled()).isFalse();
  }

  @Test
  void deviceJwtsNeedAnIssuerAndAnAudienceAndMayStandInForTheCredentialsFile() {
    Map<String, String> jwt =
        Map.of(
            "kafka.bootstrap.servers", "k:9092",
            "bridge.auth.jwt.jwks-uri", "https://idp.example/.well-known/jwks.json",
            "bridge.auth.jwt.issuer", "https://idp.example/",
            "bridge.auth.jwt.audience", "turnstile");
    BridgeConfig only = BridgeConfigLoader.fromMap(jwt);
    assertThat(only.deviceAuth().credentialsFile()).isNull();
    assertThat(only.deviceAuth().jwt())
        .isEqualTo(
            new BridgeConfig.DeviceJwt(
                java.net.URI.create("https://idp.example/.well-known/jwks.json"),
                "https://idp.example/",
                "turnstile",
                "sub",
                java.util.List.of("RS256", "ES256"),
                Duration.ofMinutes(5),
                Duration.ofSeconds(60)));

    for (String missing : java.util.List.of("bridge.auth.jwt.issuer", "bridge.auth.jwt.audience")) {
      Map<String, String> without = new java.util.HashMap<>(jwt);
      without.remove(missing);
      assertThatThrownBy(() -> BridgeConfigLoader.fromMap(without))
          .isInstanceOf(InvalidConfigurationException.class)
          .hasMessageContaining(missing + ": must be set while bridge.auth.jwt.jwks-uri is");
    }
    for (String[] bad :
        new String[][] {
          {"bridge.auth.jwt.algorithms", "RS256,HS256", "HS256 is not accepted"},
          {"bridge.auth.jwt.algorithms", "none", "none is not accepted"},
          {"bridge.auth.jwt.algorithms", " , ", "name at least one JWS algorithm"},
          {"bridge.auth.jwt.jwks-uri", "file:///etc/jwks.json", "must be an https:// URL"},
          {
            "bridge.auth.jwt.jwks-uri", "http://idp.example/jwks.json", "http:// only to a loopback"
          },
          {"bridge.auth.jwt.jwks-uri", "https://user:s3cret@idp.example/jwks", "no user info"},
          {"bridge.auth.jwt.jwks-uri", "https://", "https://"},
          {"bridge.auth.jwt.devices-claim", "", "bridge.auth.jwt.devices-claim"}
        }) {
      Map<String, String> with = new java.util.HashMap<>(jwt);
      with.put(bad[0], bad[1]);
      assertThatThrownBy(() -> BridgeConfigLoader.fromMap(with))
          .as("%s=%s", bad[0], bad[1])
          .isInstanceOf(InvalidConfigurationException.class)
          .hasMessageContaining(bad[0])
          .hasMessageContaining(bad[2])
          .hasMessageNotContaining("s3cret");
    }
    Map<String, String> loopback = new java.util.HashMap<>(jwt);
    loopback.put("bridge.auth.jwt.jwks-uri", "http://127.0.0.1:8089/jwks.json");
    assertThat(BridgeConfigLoader.fromMap(loopback).deviceAuth().jwt().jwksUri().getScheme())
        .isEqualTo("http");
    Map<String, String> blank = new java.util.HashMap<>(jwt);
    blank.put("bridge.auth.jwt.jwks-uri", " ");
    blank.put("bridge.auth.credentials-file", "/s/c");
    assertThat(BridgeConfigLoader.fromMap(blank).deviceAuth().jwt())
        .as("a blank URI (an empty environment variable) is no JWTs")
        .isNull();
  }

  /** The whole kind: no configuration problem echoes a URL's user info, whatever the key. */
  @Test
  void noConfigurationProblemShowsTheUserInfoOfAUrl() {
    for (String key :
        java.util.List.of(
            "bridge.http.port",
            "bridge.auth.enabled",
            "bridge.device.min-occurred-at",
            "bridge.http.tls.protocols",
            "bridge.auth.jwt.jwks-uri")) {
      Map<String, String> with = new java.util.HashMap<>();
      with.put("kafka.bootstrap.servers", "k:9092");
      with.put("bridge.auth.credentials-file", "/s/c");
      with.put(key, "ftp://admin:s3cret@host.example/x");
      assertThatThrownBy(() -> BridgeConfigLoader.fromMap(with))
          .as(key)
          .isInstanceOf(InvalidConfigurationException.class)
          .hasMessageContaining(key)
          .hasMessageContaining("ftp://(hidden)@host.example/x")
          .hasMessageNotContaining("s3cret");
    }
  }

  /** The bridge's configuration from the two required keys and {@code keysAndValues}. */
  private static BridgeConfig withRequired(String... keysAndValues) {
    Map<String, String> values = new java.util.HashMap<>();
    values.put("kafka.bootstrap.servers", "k:9092");
    values.put("bridge.auth.credentials-file", "creds");
    for (int i = 0; i < keysAndValues.length; i += 2) {
      values.put(keysAndValues[i], keysAndValues[i + 1]);
    }
    return BridgeConfigLoader.fromMap(values);
  }
}
