package dev.turnstile.bridge.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.turnstile.bridge.application.KeyRule;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ServiceBusConfigTest {

  private static final String EMULATOR =
      "Endpoint=sb://127.0.0.1:5672;SharedAccessKeyName=k;SharedAccessKey=v;"
          + "UseDevelopmentEmulator=true";

  @Test
  void noEntitiesMeansNoServiceBusSource() {
    assertThat(BridgeConfigLoader.fromMap(base()).serviceBus()).isNull();
  }

  @Test
  void entitiesGetTheirDefaults() {
    Map<String, String> values = oneQueue();
    values.put("topic.prefix", "dev.");
    ServiceBusConfig config = BridgeConfigLoader.fromMap(values).serviceBus();
    ServiceBusConfig.Entity entity = config.entities().get(0);
    assertThat(config.namespace()).isEqualTo("127.0.0.1");
    assertThat(entity.entityPath()).isEqualTo("billing-q");
    assertThat(entity.kafkaTopic()).isEqualTo("dev.servicebus-messages.raw.v1");
    assertThat(entity.key()).isEqualTo(KeyRule.MESSAGE_ID);
    assertThat(entity.keyRequired()).isTrue();
    assertThat(entity.maxConcurrentCalls()).isEqualTo(1);
    assertThat(entity.prefetch()).isZero();
    assertThat(entity.maxAutoLockRenew()).isEqualTo(Duration.ofMinutes(5));
    assertThat(entity.sessionIdleTimeout()).isEqualTo(Duration.ofMillis(250));
  }

  @Test
  void aSessionEntityTakesOneMessageAtATimeAndSaysWhichKeyToRaiseInstead() {
    Map<String, String> values = oneQueue();
    values.put("bridge.servicebus.entity.billing.sessions", "true");
    values.put("bridge.servicebus.entity.billing.max-concurrent-calls", "4");
    assertThatThrownBy(() -> BridgeConfigLoader.fromMap(values))
        .hasMessageContaining("bridge.servicebus.entity.billing.max-concurrent-calls")
        .hasMessageContaining("bridge.servicebus.entity.billing.max-concurrent-sessions");
  }

  @Test
  void subscriptionsHaveTheirEntityPath() {
    Map<String, String> values = base();
    values.put("bridge.servicebus.entities", "orders");
    values.put("bridge.servicebus.namespace", "ns.servicebus.windows.net");
    values.put("bridge.servicebus.entity.orders.topic", "orders");
    values.put("bridge.servicebus.entity.orders.subscription", "bridge");
    ServiceBusConfig config = BridgeConfigLoader.fromMap(values).serviceBus();
    assertThat(config.connectionString()).isNull();
    assertThat(config.entities().get(0).entityPath()).isEqualTo("orders/subscriptions/bridge");
  }

  @Test
  void receiveAndDeleteIsRefusedSayingWhy() {
    Map<String, String> values = oneQueue();
    values.put("bridge.servicebus.entity.billing.receive-mode", "receive-and-delete");
    assertThatThrownBy(() -> BridgeConfigLoader.fromMap(values))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("bridge.servicebus.entity.billing.receive-mode")
        .hasMessageContaining("before Kafka acknowledged it");
  }

  @Test
  void emulatorConnectionStringIsRefusedWithoutLocalMode() {
    Map<String, String> values = oneQueue();
    values.remove("bridge.servicebus.local-mode");
    assertThatThrownBy(() -> BridgeConfigLoader.fromMap(values))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("bridge.servicebus.connection-string")
        .hasMessageContaining("bridge.servicebus.local-mode=true");
  }

  @Test
  void settleTimeoutMustStayBelowTheLockRenewalCap() {
    Map<String, String> values = oneQueue();
    values.put("bridge.servicebus.settle-timeout-ms", "60000");
    values.put("bridge.servicebus.entity.billing.max-auto-lock-renew-ms", "60000");
    assertThatThrownBy(() -> BridgeConfigLoader.fromMap(values))
        .hasMessageContaining("bridge.servicebus.settle-timeout-ms")
        .hasMessageContaining("max-auto-lock-renew-ms");
  }

  @Test
  void shutdownMustLeaveTimeToDrainCallbacksWaitingForTheirAck() {
    Map<String, String> values = oneQueue();
    values.put("bridge.servicebus.settle-timeout-ms", "15000");
    values.put("bridge.shutdown-timeout-ms", "10000");
    assertThatThrownBy(() -> BridgeConfigLoader.fromMap(values))
        .hasMessageContaining("bridge.shutdown-timeout-ms")
        .hasMessageContaining("bridge.servicebus.settle-timeout-ms");

    values.put("bridge.shutdown-timeout-ms", "15000");
    assertThat(BridgeConfigLoader.fromMap(values).get(BridgeConfigModel.SHUTDOWN_TIMEOUT_MS))
        .hasSeconds(15);
  }

  @Test
  void badKeyRuleNamesItsKey() {
    Map<String, String> values = oneQueue();
    values.put("bridge.servicebus.entity.billing.key", "header:x");
    assertThatThrownBy(() -> BridgeConfigLoader.fromMap(values))
        .hasMessageContaining("bridge.servicebus.entity.billing.key");
  }

  @Test
  void queueOrTopicWithSubscriptionIsRequired() {
    Map<String, String> values = oneQueue();
    values.put("bridge.servicebus.entity.billing.topic", "t");
    assertThatThrownBy(() -> BridgeConfigLoader.fromMap(values))
        .hasMessageContaining("bridge.servicebus.entity.billing.queue");
  }

  @Test
  void connectionStringIsMaskedAndEntityKeysComeFromTheEnvironment() {
    assertThat(
            BridgeConfigLoader.keyOf(
                "TURNSTILE_BRIDGE_SERVICEBUS_ENTITY_BILLING_MAX_CONCURRENT_CALLS"))
        .isEqualTo("bridge.servicebus.entity.billing.max-concurrent-calls");
    assertThat(BridgeConfigLoader.keyOf("TURNSTILE_BRIDGE_SERVICEBUS_CONNECTION_STRING"))
        .isEqualTo("bridge.servicebus.connection-string");
    assertThat(BridgeConfigLoader.fromMap(oneQueue()).toString())
        .doesNotContain("SharedAccessKey")
        .contains("bridge.servicebus.connection-string=[hidden]");
    ServiceBusConfig serviceBus = BridgeConfigLoader.fromMap(oneQueue()).serviceBus();
    assertThat(serviceBus.toString()).doesNotContain("SharedAccessKey").contains("[hidden]");
    assertThat(serviceBus.connectionString().value()).isEqualTo(EMULATOR);
  }

  private static Map<String, String> base() {
    Map<String, String> values = new HashMap<>();
    values.put("kafka.bootstrap.servers", "k:9092");
    values.put("bridge.auth.credentials-file", "device-credentials");
    return values;
  }

  private static Map<String, String> oneQueue() {
    Map<String, String> values = base();
    values.put("bridge.servicebus.entities", "billing");
    values.put("bridge.servicebus.connection-string", EMULATOR);
    values.put("bridge.servicebus.local-mode", "true");
    values.put("bridge.servicebus.entity.billing.queue", "billing-q");
    return values;
  }
}
