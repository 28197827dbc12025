package dev.turnstile.topology.config;

import static dev.turnstile.topology.config.TopologyConfigModel.*;

import dev.turnstile.runtime.config.Setting;
import dev.turnstile.runtime.config.Settings;
import dev.turnstile.schemas.Generation;
import dev.turnstile.topology.domain.session.SessionPolicy;
import java.nio.file.Path;
import java.util.Map;

/**
 * Configuration of the topology process, validated at start-up: a properties file, then {@code
 * TURNSTILE_*} environment variables, which win. Every key is declared once in {@link
 * TopologyConfigModel} and read with its declaration, {@code config.get(DEDUP_RETENTION)}; the
 * accessors below only combine keys. {@link #toString()} shows every key, secrets hidden.
 */
public final class TopologyConfig {

  private final Settings settings;
  private final MergeSettings merge;

  private TopologyConfig(Settings settings) {
    this.settings = settings;
    this.merge = MergeSettings.from(settings);
  }

  /**
   * Values from {@code file} (may be null), overridden by {@code environment}.
   *
   * @throws dev.turnstile.runtime.config.InvalidConfigurationException naming each bad key
   */
  public static TopologyConfig load(Path file, Map<String, String> environment) {
    return new TopologyConfig(TopologyConfigModel.MODEL.load(file, environment));
  }

  /**
   * Values given directly, as tests and the local stack do.
   *
   * @throws dev.turnstile.runtime.config.InvalidConfigurationException naming each bad key
   */
  public static TopologyConfig of(Map<String, String> values) {
    return new TopologyConfig(TopologyConfigModel.MODEL.parse(values));
  }

  /** Values {@link TopologyConfigModel#MODEL} checked. */
  public static TopologyConfig of(Settings settings) {
    return new TopologyConfig(settings);
  }

  /** The value of a key, or its default. */
  public <T> T get(Setting<T> key) {
    return settings.get(key);
  }

  /** The checked values. */
  public Settings settings() {
    return settings;
  }

  /**
   * {@code ${user.home}/.turnstile/streams}. Not under {@code java.io.tmpdir}: Kafka Streams warns
   * at every start about a state directory there (the OS may clear it under a running client). On
   * Kubernetes set {@code topology.state-dir} to the mount path of the pod's emptyDir volume.
   */
  public static Path defaultStateDir() {
    return Path.of(System.getProperty("user.home"), ".turnstile", "streams");
  }

  /**
   * A topic's full name under this deployment's prefix, and, for a topic the topology writes, under
   * its generation's name ({@link Generation#topicName}).
   */
  public String topic(dev.turnstile.schemas.Topic topic) {
    return generation().topicName(topic, get(TOPIC_PREFIX));
  }

  /** The generation this process runs; {@link Generation#DEFAULT} unless configured. */
  public Generation generation() {
    return get(GENERATION);
  }

  /**
   * Kafka Streams' {@code application.id}: {@code topology.application-id}, with the generation's
   * name for a named generation ({@link Generation#applicationId}).
   */
  public String applicationId() {
    return generation().applicationId(get(APPLICATION_ID));
  }

  public SessionPolicy sessionPolicy() {
    return new SessionPolicy(
        get(SESSION_REORDER_GRACE),
        get(SESSION_MAX_DURATION),
        get(SESSION_MAX_HELD_FINISHES),
        get(SESSION_ENDED_RETENTION));
  }

  public MergeSettings merge() {
    return merge;
  }

  /**
   * {@code kafka.*} keys given, without the prefix (not {@code kafka.streams.*}): for every Kafka
   * client, e.g. security settings; holds {@code bootstrap.servers}.
   */
  public Map<String, String> kafkaCommon() {
    return settings.passThrough(KAFKA_PREFIX);
  }

  /** {@code kafka.streams.*} keys given, without the prefix: for Kafka Streams, last word. */
  public Map<String, String> streamsOverrides() {
    return settings.passThrough(KAFKA_STREAMS_PREFIX);
  }

  @Override
  public String toString() {
    return settings.toString();
  }
}
