package dev.turnstile.bridge.config;

import static dev.turnstile.bridge.config.BridgeConfigModel.*;

import dev.turnstile.bridge.application.KeyRule;
import dev.turnstile.runtime.config.Settings;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import org.apache.kafka.common.config.types.Password;

/**
 * The Service Bus source, present only when {@code bridge.servicebus.entities} is set: the keys
 * {@code bridge.servicebus.*}, each component the key of the same name in {@link
 * BridgeConfigModel}.
 *
 * @param connectionString {@code null} to use {@code DefaultAzureCredential} with {@code
 *     namespace}; a {@link Password}, as the model types a secret, so {@link #toString()} hides it
 * @param namespace from the connection string's {@code Endpoint} host when not set
 */
public record ServiceBusConfig(
    Password connectionString,
    String namespace,
    boolean localMode,
    Duration settleTimeout,
    Duration resumeCheckInterval,
    List<Entity> entities) {

  public ServiceBusConfig {
    entities = List.copyOf(entities);
  }

  /**
   * One queue or topic subscription, {@code bridge.servicebus.entity.<name>.*}: each component the
   * key of the same name ({@code null} when an optional one is not set).
   *
   * @param kafkaTopic full Kafka topic name, {@code topic.prefix} applied
   */
  public record Entity(
      String name,
      String queue,
      String topic,
      String subscription,
      boolean sessions,
      String kafkaTopic,
      KeyRule key,
      boolean keyRequired,
      int maxConcurrentCalls,
      int maxConcurrentSessions,
      Duration sessionIdleTimeout,
      Duration maxAutoLockRenew,
      int prefetch,
      String schema) {

    /** The path Service Bus knows it by: {@code queue} or {@code topic/subscriptions/sub}. */
    public String entityPath() {
      return queue != null ? queue : topic + "/subscriptions/" + subscription;
    }
  }

  /** The source the checked settings describe, or {@code null} when they list no entity. */
  static ServiceBusConfig from(Settings s) {
    if (s.instances(ENTITY).isEmpty()) {
      return null;
    }
    String connectionString = s.get(SERVICEBUS_CONNECTION_STRING).orElse(null);
    String namespace =
        s.get(SERVICEBUS_NAMESPACE)
            .orElseGet(
                () -> {
                  Matcher host = BridgeConfigRules.ENDPOINT_HOST.matcher(connectionString);
                  return host.find() ? host.group(1) : null;
                });
    List<Entity> entities =
        s.instances(ENTITY).values().stream()
            .map(
                e ->
                    new Entity(
                        e.name(),
                        e.get(ENTITY_QUEUE).orElse(null),
                        e.get(ENTITY_TOPIC).orElse(null),
                        e.get(ENTITY_SUBSCRIPTION).orElse(null),
                        e.get(ENTITY_SESSIONS),
                        s.get(TOPIC_PREFIX) + e.get(ENTITY_KAFKA_TOPIC),
                        e.get(ENTITY_KEY),
                        e.get(ENTITY_KEY_REQUIRED),
                        e.get(ENTITY_MAX_CONCURRENT_CALLS),
                        e.get(ENTITY_MAX_CONCURRENT_SESSIONS),
                        e.get(ENTITY_SESSION_IDLE_TIMEOUT_MS),
                        e.get(ENTITY_MAX_AUTO_LOCK_RENEW_MS),
                        e.get(ENTITY_PREFETCH),
                        e.get(ENTITY_SCHEMA).orElse(null)))
            .toList();
    return new ServiceBusConfig(
        connectionString == null ? null : new Password(connectionString),
        namespace,
        s.get(SERVICEBUS_LOCAL_MODE),
        s.get(SERVICEBUS_SETTLE_TIMEOUT_MS),
        s.get(SERVICEBUS_RESUME_CHECK_INTERVAL_MS),
        entities);
  }
}
