package dev.turnstile.bridge.config;

import static dev.turnstile.bridge.config.BridgeConfig.*;

import dev.turnstile.bridge.config.BridgeConfigLoader.Values;
import dev.turnstile.schemas.TopicCatalogue;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Reads and checks the {@code bridge.servicebus.*} keys; every error names its key. */
final class ServiceBusConfigReader {

  private static final Pattern ENTITY_NAME = Pattern.compile("[a-z0-9]+");
  private static final Pattern ENDPOINT_HOST =
      Pattern.compile("(?i)(?:^|;)\\s*Endpoint\\s*=\\s*[a-z]+://([^:/;]+)");
  private static final Pattern EMULATOR =
      Pattern.compile("(?i)(?:^|;)\\s*UseDevelopmentEmulator\\s*=\\s*true\\s*(?:;|$)");

  private ServiceBusConfigReader() {}

  /** The Service Bus source, or {@code null} when no entity is configured. */
  static ServiceBusConfig read(Map<String, String> values, String topicPrefix) {
    Values v = new Values(values);
    String names = v.string(SERVICEBUS_ENTITIES, "");
    if (names.isBlank()) {
      return null;
    }
    String connectionString = blankToNull(v.string(SERVICEBUS_CONNECTION_STRING, null));
    String namespace = blankToNull(v.string(SERVICEBUS_NAMESPACE, null));
    boolean localMode = v.bool(SERVICEBUS_LOCAL_MODE, false);
    if (connectionString == null && namespace == null) {
      throw new IllegalArgumentException(
          SERVICEBUS_CONNECTION_STRING
              + " or "
              + SERVICEBUS_NAMESPACE
              + " is required when "
              + SERVICEBUS_ENTITIES
              + " is set");
    }
    if (connectionString != null) {
      if (EMULATOR.matcher(connectionString).find() && !localMode) {
        throw new IllegalArgumentException(
            SERVICEBUS_CONNECTION_STRING
                + " has UseDevelopmentEmulator=true, which turns TLS off: allowed only with "
                + SERVICEBUS_LOCAL_MODE
                + "=true (tests and local runs)");
      }
      if (namespace == null) {
        Matcher host = ENDPOINT_HOST.matcher(connectionString);
        if (!host.find()) {
          throw new IllegalArgumentException(
              SERVICEBUS_CONNECTION_STRING + " has no Endpoint=sb://<namespace>/");
        }
        namespace = host.group(1);
      }
    }
    Duration settleTimeout =
        Duration.ofMillis(v.number(SERVICEBUS_SETTLE_TIMEOUT_MS, 15_000, 100, 3_600_000));
    Duration resumeCheck =
        Duration.ofMillis(v.number(SERVICEBUS_RESUME_CHECK_INTERVAL_MS, 1_000, 10, 600_000));
    List<ServiceBusConfig.Entity> entities = new ArrayList<>();
    for (String name : entityNames(names)) {
      entities.add(entity(v, name, topicPrefix, settleTimeout));
    }
    return new ServiceBusConfig(
        connectionString, namespace, localMode, settleTimeout, resumeCheck, entities);
  }

  private static Set<String> entityNames(String names) {
    Set<String> result = new LinkedHashSet<>();
    for (String raw : names.split(",")) {
      String name = raw.trim();
      if (!ENTITY_NAME.matcher(name).matches() || !result.add(name)) {
        throw new IllegalArgumentException(
            SERVICEBUS_ENTITIES
                + " must list distinct names of [a-z0-9]+, comma-separated, got '"
                + names
                + "'");
      }
    }
    return result;
  }

  private static ServiceBusConfig.Entity entity(
      Values v, String name, String topicPrefix, Duration settleTimeout) {
    String p = SERVICEBUS_ENTITY_PREFIX + name + ".";
    String queue = blankToNull(v.string(p + ENTITY_QUEUE, null));
    String topic = blankToNull(v.string(p + ENTITY_TOPIC, null));
    String subscription = blankToNull(v.string(p + ENTITY_SUBSCRIPTION, null));
    if ((queue == null) == (topic == null) || (topic == null) != (subscription == null)) {
      throw new IllegalArgumentException(
          p
              + ENTITY_QUEUE
              + ", or "
              + p
              + ENTITY_TOPIC
              + " with "
              + p
              + ENTITY_SUBSCRIPTION
              + ", is required (not both)");
    }
    String receiveMode = v.string(p + ENTITY_RECEIVE_MODE, "peek-lock").toLowerCase(Locale.ROOT);
    if (!"peek-lock".equals(receiveMode)) {
      throw new IllegalArgumentException(
          p
              + ENTITY_RECEIVE_MODE
              + " must be peek-lock, got '"
              + receiveMode
              + "': with receive-and-delete a message is gone from Service Bus before Kafka"
              + " acknowledged it, so a Kafka failure would lose it");
    }
    KeyRule key;
    try {
      key = KeyRule.parse(v.string(p + ENTITY_KEY, "message-id"));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(p + ENTITY_KEY + " " + e.getMessage(), e);
    }
    Duration maxRenew =
        Duration.ofMillis(v.number(p + ENTITY_MAX_AUTO_LOCK_RENEW_MS, 300_000, 0, 86_400_000));
    if (settleTimeout.compareTo(maxRenew) >= 0) {
      throw new IllegalArgumentException(
          SERVICEBUS_SETTLE_TIMEOUT_MS
              + " ("
              + settleTimeout.toMillis()
              + ") must be below "
              + p
              + ENTITY_MAX_AUTO_LOCK_RENEW_MS
              + " ("
              + maxRenew.toMillis()
              + "): the lock is renewed only while the callback waits for Kafka");
    }
    String kafkaTopic =
        v.string(p + ENTITY_KAFKA_TOPIC, TopicCatalogue.SERVICEBUS_MESSAGES_RAW.baseName());
    return new ServiceBusConfig.Entity(
        name,
        queue,
        topic,
        subscription,
        v.bool(p + ENTITY_SESSIONS, false),
        topicPrefix + kafkaTopic,
        key,
        v.bool(p + ENTITY_KEY_REQUIRED, true),
        (int) v.number(p + ENTITY_MAX_CONCURRENT_CALLS, 1, 1, 100),
        (int) v.number(p + ENTITY_MAX_CONCURRENT_SESSIONS, 1, 1, 100),
        maxRenew,
        (int) v.number(p + ENTITY_PREFETCH, 0, 0, 1_000),
        blankToNull(v.string(p + ENTITY_SCHEMA, null)));
  }

  private static String blankToNull(String value) {
    return value == null || value.isBlank() ? null : value;
  }
}
