package dev.turnstile.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.turnstile.bridge.config.BridgeConfigModel;
import dev.turnstile.bridge.config.BridgeProducerConfig;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.junit.jupiter.api.Test;

/** The raw producer, the bridge benchmark's baseline, is the bridge's producer. */
class ProducerRunnerTest {

  @Test
  void withoutOverridesTheBaselineHasTheBridgesDefaults() {
    Map<String, Object> defaults = new HashMap<>(BridgeProducerConfig.defaults());
    defaults.remove(ProducerConfig.CLIENT_ID_CONFIG);

    assertThat(ProducerRunner.config(Map.of()))
        .containsAllEntriesOf(defaults)
        .containsEntry(ProducerConfig.CLIENT_ID_CONFIG, "bench-raw-producer")
        .doesNotContainKey(ProducerConfig.MAX_BLOCK_MS_CONFIG);
  }

  @Test
  void theBaselineRunsTheBridgesProducerWithTheRunsOverrides() {
    Map<String, String> overrides =
        Map.of(
            BridgeConfigModel.KAFKA_PRODUCER_PREFIX + ProducerConfig.BATCH_SIZE_CONFIG,
            "32768",
            BridgeConfigModel.KAFKA_PREFIX + ProducerConfig.BATCH_SIZE_CONFIG,
            "8192",
            BridgeConfigModel.KAFKA_PREFIX + ProducerConfig.LINGER_MS_CONFIG,
            "7",
            BridgeConfigModel.KAFKA_BOOTSTRAP_SERVERS.name(),
            "elsewhere:9092",
            BridgeConfigModel.KAFKA_ACK_TIMEOUT_MS.name(),
            "20000",
            "bridge.http.port",
            "9999");

    Map<String, Object> raw = ProducerRunner.config(overrides);

    Map<String, Object> bridge =
        new HashMap<>(
            BridgeProducerConfig.properties(
                Map.of(
                    ProducerConfig.BATCH_SIZE_CONFIG,
                    "32768",
                    ProducerConfig.LINGER_MS_CONFIG,
                    "7"),
                BridgeConfigModel.KAFKA_ACK_TIMEOUT_MS.parse("20000")));
    bridge.remove(ProducerConfig.MAX_BLOCK_MS_CONFIG);
    bridge.put(ProducerConfig.CLIENT_ID_CONFIG, "bench-raw-producer");
    assertThat(raw)
        .isEqualTo(bridge)
        .containsEntry(ProducerConfig.BATCH_SIZE_CONFIG, "32768")
        .containsEntry(ProducerConfig.LINGER_MS_CONFIG, "7")
        .doesNotContainKey(ProducerConfig.MAX_BLOCK_MS_CONFIG)
        .doesNotContainKey(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG);
  }
}
