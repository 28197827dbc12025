package dev.turnstile.topology.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.turnstile.runtime.config.InvalidConfigurationException;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MergeSettingsTest {

  @Test
  void defaultsReadTheMergeKeyPropertyAndMergeSessions() {
    MergeSettings merge = TopologyConfig.of(Map.of("kafka.bootstrap.servers", "k:9092")).merge();

    assertThat(merge.keyProperty()).isEqualTo("mergeKey");
    assertThat(merge.keyPointer()).isEmpty();
    assertThat(merge.versionProperty()).isEmpty();
    assertThat(merge.versionPointer()).isEmpty();
    assertThat(merge.sessionsEnabled()).isTrue();
    assertThat(merge.maxDocumentBytes()).isEqualTo(64 * 1024);
    assertThat(merge.maxPatches()).isEqualTo(12);
  }

  @Test
  void boundsWhoseStoredStateCouldOutgrowAChangelogRecordAreRefused() {
    assertThatThrownBy(
            () ->
                TopologyConfig.of(
                    Map.of(
                        "kafka.bootstrap.servers", "k:9092",
                        "topology.merge.max-patches", "64",
                        "topology.merge.max-document-bytes", "262144")))
        .isInstanceOf(InvalidConfigurationException.class)
        .hasMessageContaining("topology.merge.max-patches")
        .hasMessageContaining("max-document-bytes");
  }

  @Test
  void aBadValueNamesItsKey() {
    assertThatThrownBy(
            () ->
                TopologyConfig.of(
                    Map.of(
                        "kafka.bootstrap.servers", "k:9092",
                        "topology.merge.servicebus.key-pointer", "sessionId")))
        .isInstanceOf(InvalidConfigurationException.class)
        .hasMessageContaining("topology.merge.servicebus.key-pointer");
    assertThatThrownBy(
            () ->
                TopologyConfig.of(
                    Map.of(
                        "kafka.bootstrap.servers", "k:9092",
                        "topology.merge.sessions.enabled", "yes")))
        .isInstanceOf(InvalidConfigurationException.class)
        .hasMessageContaining("topology.merge.sessions.enabled");
  }
}
