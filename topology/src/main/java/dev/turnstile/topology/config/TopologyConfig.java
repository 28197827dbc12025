package dev.turnstile.topology.config;

import dev.turnstile.topology.domain.session.SessionPolicy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;

/**
 * Configuration of the topology process, validated at start-up.
 *
 * <table>
 *   <caption>Keys</caption>
 *   <tr><th>key</th><th>meaning</th><th>default</th></tr>
 *   <tr><td>{@code kafka.bootstrap.servers}</td><td>Kafka bootstrap, host:port[,...]</td><td>required</td></tr>
 *   <tr><td>{@code topic.prefix}</td><td>prefix of every topic name</td><td>""</td></tr>
 *   <tr><td>{@code topology.application-id}</td><td>Kafka Streams {@code application.id}</td><td>turnstile-topology</td></tr>
 *   <tr><td>{@code topology.state-dir}</td><td>RocksDB state directory (on k8s: the mount path of an emptyDir volume)</td><td>${user.home}/.turnstile/streams</td></tr>
 *   <tr><td>{@code topology.dedup.retention-ms}</td><td>how long event ids are remembered (ingestion time)</td><td>604800000 (7 days)</td></tr>
 *   <tr><td>{@code topology.session.reorder-grace-ms}</td><td>how long an early Finished waits for its Started</td><td>3600000 (1 h)</td></tr>
 *   <tr><td>{@code topology.session.max-duration-ms}</td><td>open sessions expire this long after their Started arrived</td><td>259200000 (72 h)</td></tr>
 *   <tr><td>{@code topology.session.max-held-finishes}</td><td>early Finished events held per device</td><td>1000</td></tr>
 *   <tr><td>{@code topology.session.ended-retention-ms}</td><td>how long ended session refs are remembered (arrival time)</td><td>604800000 (7 days)</td></tr>
 *   <tr><td>{@code topology.session.max-state-bytes}</td><td>bound on one device's stored session state; an event that would pass it is rejected (DEVICE_STATE_FULL)</td><td>262144 (256 KiB)</td></tr>
 *   <tr><td>{@code topology.punctuate-interval-ms}</td><td>wall-clock punctuation period for expiry</td><td>10000</td></tr>
 *   <tr><td>{@code topology.max-due-per-punctuation}</td><td>devices handled per punctuation</td><td>10000</td></tr>
 *   <tr><td>{@code topology.num-stream-threads}</td><td>Kafka Streams threads</td><td>1</td></tr>
 *   <tr><td>{@code topology.num-standby-replicas}</td><td>standby replicas of each store</td><td>1</td></tr>
 *   <tr><td>{@code topology.http.host}</td><td>interface of the probes and metrics server</td><td>0.0.0.0</td></tr>
 *   <tr><td>{@code topology.http.port}</td><td>its port, 0 = any free port</td><td>8081</td></tr>
 *   <tr><td>{@code topology.merge.servicebus.key-property}</td><td>application property holding a Service Bus message's merge key (header {@code sb-prop-<name>})</td><td>mergeKey</td></tr>
 *   <tr><td>{@code topology.merge.servicebus.key-pointer}</td><td>JSON pointer (RFC 6901) to the merge key in the body; when set, used instead of the property</td><td>unset</td></tr>
 *   <tr><td>{@code topology.merge.servicebus.version-property}</td><td>application property holding an explicit version (a long)</td><td>unset</td></tr>
 *   <tr><td>{@code topology.merge.servicebus.version-pointer}</td><td>JSON pointer to an explicit version (a long) in the body; when set, used instead of the property. Without either: {@code ce_sbsequencenumber}, else {@code ce_time}</td><td>unset</td></tr>
 *   <tr><td>{@code topology.merge.sessions.enabled}</td><td>closed sessions with a session reference are merged under that reference</td><td>true</td></tr>
 *   <tr><td>{@code topology.merge.max-document-bytes}</td><td>largest merge input body and merged document, UTF-8 JSON bytes</td><td>65536 (64 KiB)</td></tr>
 *   <tr><td>{@code topology.merge.max-patches}</td><td>patches retained per merge key before the oldest is compacted</td><td>12; (max-patches + 1) × max-document-bytes ≤ 900 KiB</td></tr>
 *   <tr><td>{@code kafka.streams.*}</td><td>passed to Kafka Streams unchanged, last word</td><td></td></tr>
 * </table>
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
    Map<String, String> streamsOverrides) {

  public TopologyConfig {
    streamsOverrides = Map.copyOf(streamsOverrides);
  }

  /** Reads and validates every key; throws {@link ConfigException} naming the first bad key. */
  public static TopologyConfig from(ConfigValues values) {
    SessionPolicy defaults = SessionPolicy.DEFAULT;
    return new TopologyConfig(
        values.required("kafka.bootstrap.servers"),
        values.string("topic.prefix", ""),
        values.string("topology.application-id", "turnstile-topology"),
        Path.of(values.string("topology.state-dir", defaultStateDir().toString())),
        values.millis("topology.dedup.retention-ms", Duration.ofDays(7), 60_000),
        new SessionPolicy(
            values.millis("topology.session.reorder-grace-ms", defaults.reorderGrace(), 0),
            values.millis("topology.session.max-duration-ms", defaults.maxSessionDuration(), 1),
            values.integer(
                "topology.session.max-held-finishes", defaults.maxHeldFinishesPerDevice(), 0),
            values.millis(
                "topology.session.ended-retention-ms", defaults.endedSessionRetention(), 60_000)),
        values.millis("topology.punctuate-interval-ms", Duration.ofSeconds(10), 10),
        values.integer("topology.max-due-per-punctuation", 10_000, 1),
        values.integer("topology.session.max-state-bytes", 256 * 1024, 1024),
        values.integer("topology.num-stream-threads", 1, 1),
        values.integer("topology.num-standby-replicas", 1, 0),
        values.string("topology.http.host", "0.0.0.0"),
        values.integer("topology.http.port", 8081, 0),
        MergeSettings.from(values),
        new TreeMap<>(values.withPrefix("kafka.streams.")));
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
    streamsOverrides.forEach((k, v) -> shown.put(k, isSecret(k) ? "****" : v));
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
        + ", streamsOverrides="
        + shown
        + "]";
  }

  static boolean isSecret(String key) {
    String k = key.toLowerCase(java.util.Locale.ROOT);
    return k.contains("password")
        || k.contains("jaas")
        || k.contains("secret")
        || k.endsWith(".key");
  }
}
