package dev.turnstile.bridge.config;

import static dev.turnstile.bridge.config.BridgeConfig.*;

import dev.turnstile.bridge.application.KeyRule;
import dev.turnstile.runtime.config.InvalidConfigurationException;
import dev.turnstile.runtime.config.Settings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Builds the Service Bus source from the checked {@code bridge.servicebus.*} keys and checks the
 * rules between them; every error names its key.
 */
final class ServiceBusConfigReader {

  private static final Pattern ENDPOINT_HOST =
      Pattern.compile("(?i)(?:^|;)\\s*Endpoint\\s*=\\s*[a-z]+://([^:/;]+)");
  private static final Pattern EMULATOR =
      Pattern.compile("(?i)(?:^|;)\\s*UseDevelopmentEmulator\\s*=\\s*true\\s*(?:;|$)");

  private ServiceBusConfigReader() {}

  /** The Service Bus source, or {@code null} when no entity is configured. */
  static ServiceBusConfig read(Settings s, String topicPrefix) {
    Map<String, Map<String, Object>> instances = s.instances(SERVICEBUS_ENTITY_PREFIX);
    if (instances.isEmpty()) {
      return null;
    }
    String connectionString = blankToNull(s.string(SERVICEBUS_CONNECTION_STRING));
    String namespace = blankToNull(s.string(SERVICEBUS_NAMESPACE));
    boolean localMode = s.bool(SERVICEBUS_LOCAL_MODE);
    if (connectionString == null && namespace == null) {
      throw InvalidConfigurationException.of(
          SERVICEBUS_CONNECTION_STRING,
          "or " + SERVICEBUS_NAMESPACE + " is required when " + SERVICEBUS_ENTITIES + " is set");
    }
    if (connectionString != null) {
      if (EMULATOR.matcher(connectionString).find() && !localMode) {
        throw InvalidConfigurationException.of(
            SERVICEBUS_CONNECTION_STRING,
            "has UseDevelopmentEmulator=true, which turns TLS off: allowed only with "
                + SERVICEBUS_LOCAL_MODE
                + "=true (tests and local runs)");
      }
      if (namespace == null) {
        Matcher host = ENDPOINT_HOST.matcher(connectionString);
        if (!host.find()) {
          throw InvalidConfigurationException.of(
              SERVICEBUS_CONNECTION_STRING, "has no Endpoint=sb://<namespace>/");
        }
        namespace = host.group(1);
      }
    }
    Duration settleTimeout = s.millis(SERVICEBUS_SETTLE_TIMEOUT_MS);
    Duration resumeCheck = s.millis(SERVICEBUS_RESUME_CHECK_INTERVAL_MS);
    List<ServiceBusConfig.Entity> entities = new ArrayList<>();
    instances.forEach(
        (name, values) -> entities.add(entity(name, values, topicPrefix, settleTimeout)));
    return new ServiceBusConfig(
        connectionString, namespace, localMode, settleTimeout, resumeCheck, entities);
  }

  private static ServiceBusConfig.Entity entity(
      String name, Map<String, Object> v, String topicPrefix, Duration settleTimeout) {
    String p = SERVICEBUS_ENTITY_PREFIX + name + ".";
    String queue = blankToNull((String) v.get(ENTITY_QUEUE));
    String topic = blankToNull((String) v.get(ENTITY_TOPIC));
    String subscription = blankToNull((String) v.get(ENTITY_SUBSCRIPTION));
    if ((queue == null) == (topic == null) || (topic == null) != (subscription == null)) {
      throw InvalidConfigurationException.of(
          p + ENTITY_QUEUE,
          "or "
              + p
              + ENTITY_TOPIC
              + " with "
              + p
              + ENTITY_SUBSCRIPTION
              + ", is required (not both)");
    }
    Duration maxRenew = Duration.ofMillis((Long) v.get(ENTITY_MAX_AUTO_LOCK_RENEW_MS));
    if (settleTimeout.compareTo(maxRenew) >= 0) {
      throw InvalidConfigurationException.of(
          SERVICEBUS_SETTLE_TIMEOUT_MS,
          settleTimeout.toMillis()
              + " must be below "
              + p
              + ENTITY_MAX_AUTO_LOCK_RENEW_MS
              + " ("
              + maxRenew.toMillis()
              + "): the lock is renewed only while the callback waits for Kafka");
    }
    boolean sessions = (Boolean) v.get(ENTITY_SESSIONS);
    int maxConcurrentCalls = (Integer) v.get(ENTITY_MAX_CONCURRENT_CALLS);
    if (sessions && maxConcurrentCalls > 1) {
      throw InvalidConfigurationException.of(
          p + ENTITY_MAX_CONCURRENT_CALLS,
          maxConcurrentCalls
              + " must be 1 with "
              + p
              + ENTITY_SESSIONS
              + "=true: a session's messages are taken in order, one at a time; raise "
              + p
              + ENTITY_MAX_CONCURRENT_SESSIONS
              + " for more at once");
    }
    return new ServiceBusConfig.Entity(
        name,
        queue,
        topic,
        subscription,
        sessions,
        topicPrefix + ((String) v.get(ENTITY_KAFKA_TOPIC)).trim(),
        KeyRule.parse((String) v.get(ENTITY_KEY)),
        (Boolean) v.get(ENTITY_KEY_REQUIRED),
        maxConcurrentCalls,
        (Integer) v.get(ENTITY_MAX_CONCURRENT_SESSIONS),
        Duration.ofMillis((Long) v.get(ENTITY_SESSION_IDLE_TIMEOUT_MS)),
        maxRenew,
        (Integer) v.get(ENTITY_PREFETCH),
        blankToNull((String) v.get(ENTITY_SCHEMA)));
  }

  private static String blankToNull(String value) {
    return value == null || value.isBlank() ? null : value.trim();
  }
}
