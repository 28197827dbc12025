package dev.turnstile.bridge.config;

import dev.turnstile.bridge.application.KeyRule;
import java.time.Duration;
import java.util.List;

/**
 * The Service Bus source: one connection, several entities. Keys are declared in {@link
 * BridgeConfig}; present only when {@link BridgeConfig#SERVICEBUS_ENTITIES} is set.
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
   * @param maxConcurrentCalls callbacks at once (1 with {@code sessions})
   * @param maxConcurrentSessions sessions at once (only with {@code sessions})
   * @param sessionIdleTimeout how long a session slot waits for the session's next message, once
   *     the last is settled, before it takes the next session (only with {@code sessions})
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
      Duration sessionIdleTimeout,
      Duration maxAutoLockRenew,
      int prefetch,
      String schema) {

    /** The path Service Bus knows it by: {@code queue} or {@code topic/subscriptions/sub}. */
    public String entityPath() {
      return queue != null ? queue : topic + "/subscriptions/" + subscription;
    }
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
