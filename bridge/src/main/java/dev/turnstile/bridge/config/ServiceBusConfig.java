package dev.turnstile.bridge.config;

import static dev.turnstile.bridge.config.BridgeConfigModel.*;

import dev.turnstile.bridge.application.KeyRule;
import dev.turnstile.runtime.config.Settings;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;

/**
 * The Service Bus source: one connection, several entities; keys {@code bridge.servicebus.*},
 * declared in {@link BridgeConfigModel}. Present only when {@code bridge.servicebus.entities} is
 * set.
 *
 * @param connectionString SAS connection string, or {@code null} to use {@code
 *     DefaultAzureCredential} with {@link #namespace} (secret: masked in {@link #toString()})
 * @param namespace fully qualified namespace, e.g. {@code my-ns.servicebus.windows.net}; from the
 *     connection string's {@code Endpoint} host when not set
 * @param localMode whether a development-emulator connection string (no TLS) is allowed
 * @param settleTimeout longest wait for the Kafka ack inside the message callback
 * @param resumeCheckInterval how often a paused source asks whether Kafka is back
 * @param entities the entities to receive from, in configuration order
 */
public record ServiceBusConfig(
    String connectionString,
    String namespace,
    boolean localMode,
    Duration settleTimeout,
    Duration resumeCheckInterval,
    List<Entity> entities) {

  public ServiceBusConfig {
    entities = List.copyOf(entities);
  }

  /**
   * One queue or topic subscription.
   *
   * @param name the configuration name ({@code bridge.servicebus.entity.<name>.*})
   * @param queue queue name, or {@code null} for a subscription
   * @param topic topic name, or {@code null} for a queue
   * @param subscription subscription name, or {@code null} for a queue
   * @param sessions session-enabled: one session at a time per receiver, in order
   * @param kafkaTopic full Kafka topic name, prefix applied
   * @param key where the record key comes from
   * @param keyRequired whether a message without that key is dead-lettered
   * @param maxConcurrentCalls callbacks at once (per session when {@code sessions})
   * @param maxConcurrentSessions sessions at once (only with {@code sessions})
   * @param maxAutoLockRenew how long the SDK renews a lock while the callback runs
   * @param prefetch messages fetched ahead (their locks are not renewed)
   * @param schema JSON Schema the body must satisfy (classpath resource or file), or {@code null}
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
                        e.get(ENTITY_MAX_AUTO_LOCK_RENEW_MS),
                        e.get(ENTITY_PREFETCH),
                        e.get(ENTITY_SCHEMA).orElse(null)))
            .toList();
    return new ServiceBusConfig(
        connectionString,
        namespace,
        s.get(SERVICEBUS_LOCAL_MODE),
        s.get(SERVICEBUS_SETTLE_TIMEOUT_MS),
        s.get(SERVICEBUS_RESUME_CHECK_INTERVAL_MS),
        entities);
  }

  @Override
  public String toString() {
    return "ServiceBusConfig[connectionString="
        + (connectionString == null ? "none" : "[hidden]")
        + ", namespace="
        + namespace
        + ", localMode="
        + localMode
        + ", settleTimeout="
        + settleTimeout
        + ", resumeCheckInterval="
        + resumeCheckInterval
        + ", entities="
        + entities
        + "]";
  }
}
