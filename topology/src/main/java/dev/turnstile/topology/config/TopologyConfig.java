package dev.turnstile.topology.config;

import dev.turnstile.runtime.config.Settings;
import dev.turnstile.topology.domain.session.SessionPolicy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;

/**
 * Configuration of the topology process, validated at start-up. Every key's type, default, valid
 * values and meaning is declared once in {@link TopologyConfigModel}; the README's tables are
 * generated from it.
 *
 * @param kafkaCommon {@code kafka.*} keys without the prefix (not {@code kafka.streams.*}), given
 *     to every Kafka client, e.g. security settings; holds {@code bootstrap.servers}
 * @param streamsOverrides {@code kafka.streams.*} keys without the prefix, given to Kafka Streams
 *     last
 */
public record TopologyConfig(
    String bootstrapServers,
    String topicPrefix,
    String applicationId,
    Path stateDir,
    Duration dedupRetention,
    SessionPolicy sessionPolicy,
    Duration punctuateInterval,
    int maxDuePerPunctuation,
    int maxDeviceStateBytes,
    int numStreamThreads,
    int numStandbyReplicas,
    String httpHost,
    int httpPort,
    MergeSettings merge,
    QuerySettings query,
    Duration topicsWait,
    Duration topicsCheckInterval,
    Map<String, String> kafkaCommon,
    Map<String, String> streamsOverrides) {

  public TopologyConfig {
    kafkaCommon = Map.copyOf(kafkaCommon);
    streamsOverrides = Map.copyOf(streamsOverrides);
  }

  /**
   * Reads and validates every key.
   *
   * @throws dev.turnstile.runtime.config.InvalidConfigurationException naming each bad key
   */
  public static TopologyConfig from(ConfigValues values) {
    Settings s = values.settings();
    String stateDir = s.string("topology.state-dir");
    return new TopologyConfig(
        s.string("kafka.bootstrap.servers"),
        s.string("topic.prefix"),
        s.string("topology.application-id"),
        stateDir == null || stateDir.isBlank() ? defaultStateDir() : Path.of(stateDir),
        s.millis("topology.dedup.retention-ms"),
        new SessionPolicy(
            s.millis("topology.session.reorder-grace-ms"),
            s.millis("topology.session.max-duration-ms"),
            s.integer("topology.session.max-held-finishes"),
            s.millis("topology.session.ended-retention-ms")),
        s.millis("topology.punctuate-interval-ms"),
        s.integer("topology.max-due-per-punctuation"),
        s.integer("topology.session.max-state-bytes"),
        s.integer("topology.num-stream-threads"),
        s.integer("topology.num-standby-replicas"),
        s.string("topology.http.host"),
        s.integer("topology.http.port"),
        MergeSettings.from(values),
        QuerySettings.from(values),
        s.millis("topology.topics.wait-ms"),
        s.millis("topology.topics.check-interval-ms"),
        s.passThrough(TopologyConfigModel.KAFKA_PREFIX),
        streamsOverrides(s));
  }

  /**
   * The {@code kafka.streams.*} keys given, and every declared one with its value, defaults
   * included: a declared default reaches Kafka Streams because it is declared.
   */
  private static Map<String, String> streamsOverrides(Settings s) {
    String prefix = TopologyConfigModel.KAFKA_STREAMS_PREFIX;
    Map<String, String> overrides = new TreeMap<>(s.passThrough(prefix));
    for (String key : TopologyConfigModel.MODEL.keys().names()) {
      if (key.startsWith(prefix)) {
        overrides.put(key.substring(prefix.length()), String.valueOf(s.get(key)));
      }
    }
    return overrides;
  }

  /**
   * {@code ${user.home}/.turnstile/streams}. Not under {@code java.io.tmpdir}: Kafka Streams warns
   * at every start about a state directory there (the OS may clear it under a running client). On
   * Kubernetes set {@code topology.state-dir} to the mount path of the pod's emptyDir volume.
   */
  public static Path defaultStateDir() {
    return Path.of(System.getProperty("user.home"), ".turnstile", "streams");
  }

  /** A topic's full name under this deployment's prefix. */
  public String topic(dev.turnstile.schemas.Topic topic) {
    return topic.name(topicPrefix);
  }

  @Override
  public String toString() {
    Map<String, String> shown = new TreeMap<>();
    kafkaCommon.forEach(
        (k, v) ->
            shown.put(
                k,
                TopologyConfigModel.MODEL.isSecret(TopologyConfigModel.KAFKA_PREFIX + k)
                    ? "[hidden]"
                    : v));
    streamsOverrides.forEach(
        (k, v) ->
            shown.put(
                k,
                TopologyConfigModel.MODEL.isSecret(TopologyConfigModel.KAFKA_STREAMS_PREFIX + k)
                    ? "[hidden]"
                    : v));
    return "TopologyConfig[bootstrapServers="
        + bootstrapServers
        + ", topicPrefix="
        + topicPrefix
        + ", applicationId="
        + applicationId
        + ", stateDir="
        + stateDir
        + ", dedupRetention="
        + dedupRetention
        + ", sessionPolicy="
        + sessionPolicy
        + ", punctuateInterval="
        + punctuateInterval
        + ", merge="
        + merge
        + ", query="
        + query
        + ", kafka="
        + shown
        + "]";
  }
}
