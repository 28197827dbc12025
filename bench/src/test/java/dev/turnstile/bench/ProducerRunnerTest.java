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
  void theBaselineRunsTheBridgesProducerWithTheRunsOverrides() {
    Map<String, String> overrides =
        Map.of(
            BridgeConfigModel.KAFKA_PRODUCER_PREFIX + ProducerConfig.BATCH_SIZE_CONFIG,
            "65536",
            BridgeConfigModel.KAFKA_ACK_TIMEOUT_MS.name(),
            "20000",
            "bridge.http.port",
            "9999");

    Map<String, Object> raw = ProducerRunner.config(overrides);

    Map<String, Object> bridge =
        new HashMap<>(
            BridgeProducerConfig.properties(
                Map.of(ProducerConfig.BATCH_SIZE_CONFIG, "65536"),
                BridgeConfigModel.KAFKA_ACK_TIMEOUT_MS.parse("20000")));
    bridge.remove(ProducerConfig.MAX_BLOCK_MS_CONFIG);
    bridge.put(ProducerConfig.CLIENT_ID_CONFIG, "bench-raw-producer");
    assertThat(raw).isEqualTo(bridge).containsEntry(ProducerConfig.BATCH_SIZE_CONFIG, "65536");
    assertThat(raw).doesNotContainKey(ProducerConfig.MAX_BLOCK_MS_CONFIG);
  }
}
