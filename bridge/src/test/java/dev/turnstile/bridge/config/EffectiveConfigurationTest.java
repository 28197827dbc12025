package dev.turnstile.bridge.config;

import static dev.turnstile.bridge.config.BridgeConfigModel.*;
import static org.assertj.core.api.Assertions.assertThat;

import dev.turnstile.runtime.config.ConfigDocs;
import dev.turnstile.runtime.config.Settings;
import dev.turnstile.runtime.config.Template;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.serialization.StringSerializer;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What the bridge runs with is what its generated configuration tables say. Started from nothing
 * but the required keys, and from each example file in {@code config/}, every documented key is
 * looked up where it takes effect: the producer's keys as Kafka's producer reads the configuration
 * the bridge gives it, the HTTP limits, device access, TLS and Service Bus settings in the values
 * their adapters are handed, and the rest through the declaration the code reads it with. Each has
 * its documented default, or the value given. A key added without saying where it takes effect
 * fails the test too.
 */
class EffectiveConfigurationTest {

  static final Path CONFIG = Path.of("..", "config").toAbsolutePath().normalize();

  static Stream<Arguments> sources() {
    return Stream.of(
        Arguments.of(
            "nothing but the required keys",
            List.of(),
            Map.of(
                "TURNSTILE_KAFKA_BOOTSTRAP_SERVERS", "k:9092",
                "TURNSTILE_BRIDGE_AUTH_CREDENTIALS_FILE", "device-credentials")),
        Arguments.of(
            "config/bridge.properties", List.of(CONFIG.resolve("bridge.properties")), Map.of()),
        Arguments.of(
            "config/bridge.properties with its Service Bus lines turned on",
            List.of(ExampleFiles.bridgeWithServiceBus()),
            Map.of()),
        Arguments.of(
            "config/bridge.properties and config/kafka-sasl-ssl.properties",
            List.of(
                CONFIG.resolve("bridge.properties"), CONFIG.resolve("kafka-sasl-ssl.properties")),
            Map.of()));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("sources")
  void everyDocumentedKeyTakesEffectWithItsDocumentedDefaultOrTheValueGiven(
      String source, List<Path> files, Map<String, String> environment) {
    Settings settings = MODEL.load(files, environment);
    BridgeConfig config = BridgeConfigLoader.from(settings);
    Map<String, String> documented = ConfigDocs.documentedDefaults(ConfigDocs.markdown(MODEL));
    // 0 event loops means as many as the JVM's processors, as the key's meaning says.
    documented.put(
        HTTP_EVENT_LOOPS.name(), String.valueOf(Runtime.getRuntime().availableProcessors()));
    Template entity = MODEL.templates().get(0);
    Map<String, Object> effective = effective(config);

    assertThat(effective.keySet())
        .as("every documented key, and only those, with where it takes effect")
        .containsExactlyInAnyOrderElementsOf(documented.keySet());
    SoftAssertions softly = new SoftAssertions();
    effective.forEach(
        (key, applied) -> {
          if (key.startsWith(entity.prefix())) {
            return;
          }
          ConfigDef.ConfigKey definition = MODEL.keys().configKeys().get(key);
          String expected =
              settings.isSet(key)
                  ? ConfigDocs.cell(definition, settings.get(key))
                  : documented.get(key);
          softly
              .assertThat(ConfigDocs.cell(definition, applied))
              .as("%s, from %s", key, source)
              .isEqualTo(expected);
        });
    if (config.serviceBus() != null) {
      for (ServiceBusConfig.Entity instance : config.serviceBus().entities()) {
        Map<String, Object> handed = entity(instance, config.get(TOPIC_PREFIX));
        softly
            .assertThat(handed.keySet())
            .as("every key of entity %s, and only those, with where it takes effect", instance)
            .containsExactlyInAnyOrderElementsOf(entity.keys().names());
        handed.forEach(
            (key, applied) -> {
              String name = entity.prefix() + instance.name() + "." + key;
              ConfigDef.ConfigKey definition = entity.keys().configKeys().get(key);
              String expected =
                  settings.isSet(name)
                      ? ConfigDocs.cell(
                          definition,
                          settings.instances(ENTITY).get(instance.name()).values().get(key))
                      : documented.get(entity.prefix() + "<name>." + key);
              softly
                  .assertThat(ConfigDocs.cell(definition, applied))
                  .as("%s, from %s", name, source)
                  .isEqualTo(expected);
            });
      }
    }
    softly.assertAll();
  }

  /** Each documented key with the value that arrives where it takes effect. */
  static Map<String, Object> effective(BridgeConfig config) {
    Map<String, Object> producerProperties =
        new HashMap<>(
            BridgeProducerConfig.properties(
                config.producerProperties(), config.get(KAFKA_ACK_TIMEOUT_MS)));
    // The publisher hands the producer its serializers; Kafka's reading of the rest needs them.
    producerProperties.put("key.serializer", StringSerializer.class);
    producerProperties.put("value.serializer", StringSerializer.class);
    ProducerConfig producer = new ProducerConfig(producerProperties);
    BridgeConfig.HttpConnectionLimits limits = config.connectionLimits();
    BridgeConfig.DeviceAuth auth = config.deviceAuth();
    ServiceBusConfig serviceBus = config.serviceBus();
    Map<String, Object> effective = new TreeMap<>();
    effective.put(
        KAFKA_BOOTSTRAP_SERVERS.name(),
        String.join(",", producer.getList(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG)));
    effective.put(
        KAFKA_ACK_TIMEOUT_MS.name(),
        (long) producer.getInt(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG));
    effective.put(HTTP_HEADER_TIMEOUT_MS.name(), limits.headerTimeout().toMillis());
    effective.put(HTTP_BODY_TIMEOUT_MS.name(), limits.bodyTimeout().toMillis());
    effective.put(HTTP_IDLE_TIMEOUT_MS.name(), limits.idleTimeout().toMillis());
    effective.put(HTTP_MAX_CONNECTIONS.name(), limits.maxConnections());
    effective.put(AUTH_ENABLED.name(), auth.enabled());
    effective.put(
        AUTH_CREDENTIALS_FILE.name(),
        Optional.ofNullable(auth.credentialsFile()).map(Path::toString).orElse(null));
    effective.put(AUTH_RELOAD_INTERVAL_MS.name(), auth.reloadInterval().toMillis());
    effective.put(AUTH_FAILURE_LIMIT_PER_MINUTE.name(), auth.failureLimit().perMinute());
    effective.put(AUTH_FAILURE_LIMIT_BURST.name(), auth.failureLimit().burst());
    effective.put(RATE_LIMIT_REQUESTS_PER_SECOND.name(), config.rateLimit().requestsPerSecond());
    effective.put(RATE_LIMIT_BURST.name(), config.rateLimit().burst());
    if (serviceBus != null) {
      effective.put(SERVICEBUS_NAMESPACE.name(), serviceBus.namespace());
      effective.put(SERVICEBUS_LOCAL_MODE.name(), serviceBus.localMode());
      effective.put(SERVICEBUS_SETTLE_TIMEOUT_MS.name(), serviceBus.settleTimeout().toMillis());
      effective.put(
          SERVICEBUS_RESUME_CHECK_INTERVAL_MS.name(), serviceBus.resumeCheckInterval().toMillis());
    }
    effective.put(HTTP_EVENT_LOOPS.name(), config.get(HTTP_EVENT_LOOPS));
    // Read by the code through their declarations, nothing in between.
    for (String key : MODEL.keys().names()) {
      if (!effective.containsKey(key)) {
        effective.put(key, config.settings().get(key));
      }
    }
    Template entity = MODEL.templates().get(0);
    entity.keys().names().forEach(k -> effective.put(entity.prefix() + "<name>." + k, null));
    return effective;
  }

  /** The keys of one Service Bus entity as its receiver is handed them. */
  static Map<String, Object> entity(ServiceBusConfig.Entity entity, String topicPrefix) {
    Map<String, Object> keys = new TreeMap<>();
    keys.put(ENTITY_QUEUE.name(), entity.queue());
    keys.put(ENTITY_TOPIC.name(), entity.topic());
    keys.put(ENTITY_SUBSCRIPTION.name(), entity.subscription());
    keys.put(ENTITY_SESSIONS.name(), entity.sessions());
    keys.put(ENTITY_KAFKA_TOPIC.name(), entity.kafkaTopic().substring(topicPrefix.length()));
    keys.put(ENTITY_KEY.name(), entity.key().toString());
    keys.put(ENTITY_KEY_REQUIRED.name(), entity.keyRequired());
    keys.put(ENTITY_MAX_CONCURRENT_CALLS.name(), entity.maxConcurrentCalls());
    keys.put(ENTITY_MAX_CONCURRENT_SESSIONS.name(), entity.maxConcurrentSessions());
    keys.put(ENTITY_SESSION_IDLE_TIMEOUT_MS.name(), entity.sessionIdleTimeout().toMillis());
    keys.put(ENTITY_MAX_AUTO_LOCK_RENEW_MS.name(), entity.maxAutoLockRenew().toMillis());
    keys.put(ENTITY_PREFETCH.name(), entity.prefetch());
    // The receivers always peek-lock: the only mode the key accepts.
    keys.put(ENTITY_RECEIVE_MODE.name(), "peek-lock");
    keys.put(ENTITY_SCHEMA.name(), entity.schema());
    return keys;
  }
}
