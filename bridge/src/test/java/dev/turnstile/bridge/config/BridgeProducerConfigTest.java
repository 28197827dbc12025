package dev.turnstile.bridge.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class BridgeProducerConfigTest {

  @Test
  void passThroughKeysReachTheProducerButTheGuaranteeAndBoundsAreOurs() {
    Map<String, Object> config =
        BridgeProducerConfig.properties(
            Map.of(
                "bootstrap.servers", "k:9092",
                "batch.size", "1234",
                "linger.ms", "20",
                "acks", "1",
                "delivery.timeout.ms", "999999"),
            Duration.ofSeconds(10));

    assertThat(config)
        .containsEntry("bootstrap.servers", "k:9092")
        .containsEntry("batch.size", "1234")
        .containsEntry("linger.ms", "20")
        .containsEntry("compression.type", "lz4")
        .containsEntry("acks", "all")
        .containsEntry("enable.idempotence", true)
        .containsEntry("delivery.timeout.ms", 10_000)
        .containsEntry("request.timeout.ms", 10_000 - 20 - 1)
        .containsEntry("max.block.ms", 0L);
  }
}
