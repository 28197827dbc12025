package dev.turnstile.topology.adapter.streams;

import static dev.turnstile.topology.config.TopologyConfigModel.DEDUP_RETENTION;
import static dev.turnstile.topology.config.TopologyConfigModel.MAX_DUE_PER_PUNCTUATION;
import static dev.turnstile.topology.config.TopologyConfigModel.PUNCTUATE_INTERVAL;
import static dev.turnstile.topology.config.TopologyConfigModel.SESSION_MAX_STATE_BYTES;

import dev.turnstile.schemas.Sha256;
import dev.turnstile.schemas.Topic;
import dev.turnstile.schemas.TopicCatalogue;
import dev.turnstile.topology.config.MergeSettings;
import dev.turnstile.topology.config.TopologyConfig;
import dev.turnstile.topology.domain.merge.CompletenessRule;
import dev.turnstile.topology.domain.merge.PostMergeStep;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.TopologyDescription;
import org.apache.kafka.streams.processor.api.ProcessorSupplier;

/**
 * Builds Turnstile's topology. Tests build it through this same method.
 *
 * <pre>
 * device-events.raw.v1 -> device-event-dedup -> device-session -> device-sessions.v1
 *                  (device-state-store, device-event-index)  | Closed with a sessionRef
 *                                                      v
 *                                              session-merge-input --+
 *                                                                    v
 * servicebus-messages.raw.v1 -> servicebus-message-dedup      merge-inputs.v1 (key: merge key)
 *                                  -> servicebus-merge-input --^     |
 *                                               | keyed by its merge key, in place
 *                                               v                    v
 *                                       merge-results.v1 &lt;- merge (merge-store)
 *                                                                    | each published result
 *                                                                    v
 *                                                     post-merge -> post-merge.v1
 *
 * every stage may also write rejected-events.v1, each through its own counter and sink
 * </pre>
 *
 * <p><b>Two sub-topologies.</b> The device path shares no processor and no sink with the rest, so
 * Kafka Streams makes it a sub-topology whose tasks each read one partition of its input. Were it
 * joined to merge (one shared rejections counter, one shared {@code merge-inputs} sink), every
 * device task would also read {@code merge-inputs.v1} and order its input by timestamp with it. The
 * Service Bus path and merge are one sub-topology: task <i>p</i> reads partition <i>p</i> of both
 * of their topics, and may write {@code merge-inputs.v1} itself (a patch not merged in place); with
 * {@code max.task.idle.ms} at 0, its default, a task never waits for its own open transaction's
 * records (KIP-695).
 *
 * <p><b>Why {@code merge-inputs.v1}.</b> The merge store must be keyed by merge key, but session
 * events arrive keyed by device and Service Bus messages by a per-entity key, on different topics:
 * in place, one merge key's records would be processed by different tasks with different stores. So
 * the feeders re-key their patches by merge key and write them to {@code merge-inputs.v1}, whose
 * source feeds {@code merge}: every patch of one key lands on one partition, hence one task. It is
 * a user topic declared in {@link TopicCatalogue}, not an internal repartition topic, so its name,
 * partitions and retention are declared (and checked against the k8s manifests) like every other
 * topic and do not depend on {@code application.id}. Under exactly-once the write to it commits
 * with the feeders' input offsets. The price: Kafka Streams does not purge it after commit, so its
 * retention bounds it. A Service Bus record already keyed by its merge key sits where that hop
 * would put its patch (the two topics have one partition count, {@link #localMergePartitions()}),
 * so its patch goes to {@code merge} in place ({@link ServiceBusMergeInputProcessor}).
 *
 * <p><b>Why post-merge has no topic of its own to read.</b> It runs in {@code merge}'s task on the
 * result {@code merge} has just built ({@link PostMerge}), and remembers what it published in the
 * key's merge state: reading {@code merge-results.v1} back and keeping a store of its own cost a
 * record read, a JSON parse and a store read per result and a changelog record per publication, for
 * no guarantee the same transaction does not already give. Its rejections still go through their
 * own counter, as stage {@code post-merge}.
 */
public final class TurnstileTopology {

  private TurnstileTopology() {}

  /** The topology with the default post-merge step, a settled charging session. */
  public static Topology build(TopologyConfig config) {
    return build(config, CompletenessRule.settledChargingSession());
  }

  public static Topology build(TopologyConfig config, PostMergeStep postMergeStep) {
    return build(config, postMergeStep, localMergePartitions());
  }

  /**
   * @param localMergePartitions the partition count under which a Service Bus record keyed by its
   *     merge key is merged in place ({@link ServiceBusMergeInputProcessor}): the one both topics
   *     have; 0 sends every patch through {@code merge-inputs.v1}. A harness without a broker
   *     ({@code TopologyTestDriver}) has one partition per topic.
   */
  static Topology build(
      TopologyConfig config, PostMergeStep postMergeStep, int localMergePartitions) {
    Builder builder = new Builder(new Topology(), config);
    MergeSettings merge = config.merge();
    addDeviceSessions(builder, config, merge.sessionsEnabled());
    addServiceBusMergeInputs(builder, config, merge, localMergePartitions);
    addMerge(builder, merge, postMergeStep);
    return builder.topology;
  }

  /**
   * The partition count {@code merge-inputs.v1} and {@code servicebus-messages.raw.v1} are declared
   * with, when it is the same (it is, and a test says so); 0 when a catalogue change made it
   * differ, which sends every Service Bus patch through {@code merge-inputs.v1} again rather than
   * merging it in a task that does not hold its key. The topology process starts only on topics as
   * declared.
   */
  static int localMergePartitions() {
    int partitions = TopicCatalogue.MERGE_INPUTS.partitions();
    return partitions == TopicCatalogue.SERVICEBUS_MESSAGES_RAW.partitions() ? partitions : 0;
  }

  private static void addDeviceSessions(
      Builder builder, TopologyConfig config, boolean mergeSessions) {
    builder.source(Names.DEVICE_EVENTS_SOURCE, TopicCatalogue.DEVICE_EVENTS_RAW);
    Duration recordRetention =
        DeviceSessionProcessor.recordRetention(config.sessionPolicy(), config.get(DEDUP_RETENTION));
    builder.stage(
        Names.DEVICE_EVENT_DEDUP,
        () ->
            new DeviceEventDedupProcessor(
                config.get(DEDUP_RETENTION), recordRetention, config.get(SESSION_MAX_STATE_BYTES)),
        Names.DEVICE_EVENTS_SOURCE);
    builder.stage(
        Outputs.FIRST_DEVICE_EVENTS,
        DeviceSessionProcessor.supplier(
            config.sessionPolicy(),
            config.get(DEDUP_RETENTION),
            config.get(PUNCTUATE_INTERVAL),
            config.get(MAX_DUE_PER_PUNCTUATION),
            mergeSessions,
            config.get(SESSION_MAX_STATE_BYTES)),
        Names.DEVICE_EVENT_DEDUP);
    // The dedup stage reads what device-session writes: it finds copies through the same state.
    builder.topology.connectProcessorAndStateStores(
        Names.DEVICE_EVENT_DEDUP, Names.DEVICE_STATE_STORE, Names.DEVICE_EVENT_INDEX);
    builder.sink(
        Outputs.DEVICE_SESSIONS,
        TopicCatalogue.DEVICE_SESSIONS,
        DeviceSessionProcessor.EVENT_SERDE.serializer(),
        Names.DEVICE_SESSION);
    if (mergeSessions) {
      builder.child(Outputs.CLOSED_SESSIONS, SessionMergeInputProcessor::new, Names.DEVICE_SESSION);
      builder.sink(
          Outputs.SESSION_MERGE_INPUTS,
          TopicCatalogue.MERGE_INPUTS,
          MergeInput.SERDE.serializer(),
          Names.SESSION_MERGE_INPUT);
    }
  }

  private static void addServiceBusMergeInputs(
      Builder builder, TopologyConfig config, MergeSettings merge, int localMergePartitions) {
    builder.source(Names.SERVICEBUS_MESSAGES_SOURCE, TopicCatalogue.SERVICEBUS_MESSAGES_RAW);
    builder.stage(
        Names.SERVICEBUS_MESSAGE_DEDUP,
        EventDedupProcessor.supplier(
            Names.SERVICEBUS_MESSAGE_DEDUP,
            Names.SERVICEBUS_MESSAGE_DEDUP_STORE,
            config.get(DEDUP_RETENTION),
            Outputs.FIRST_SERVICEBUS_MESSAGES,
            new ServiceBusMessageReader()),
        Names.SERVICEBUS_MESSAGES_SOURCE);
    builder.stage(
        Outputs.FIRST_SERVICEBUS_MESSAGES,
        () -> new ServiceBusMergeInputProcessor(merge, localMergePartitions),
        Names.SERVICEBUS_MESSAGE_DEDUP);
    builder.sink(
        Outputs.SERVICEBUS_MERGE_INPUTS,
        TopicCatalogue.MERGE_INPUTS,
        MergeInput.SERDE.serializer(),
        Names.SERVICEBUS_MERGE_INPUT);
  }

  private static void addMerge(Builder builder, MergeSettings merge, PostMergeStep step) {
    builder.source(
        Names.MERGE_INPUTS_SOURCE, TopicCatalogue.MERGE_INPUTS, MergeProcessor.INPUT_DESERIALIZER);
    // Two parents: what merge-inputs.v1 carries, and the Service Bus patches merged in place
    // (Outputs.LOCAL_MERGE_INPUTS), which makes the Service Bus path and merge one sub-topology.
    builder.stage(
        Names.MERGE,
        MergeProcessor.supplier(
            merge.maxPatches(),
            merge.maxDocumentBytes(),
            MergeSettings.MAX_STORED_STATE_BYTES,
            merge.retention(),
            step),
        Names.MERGE_INPUTS_SOURCE,
        Names.SERVICEBUS_MERGE_INPUT);
    builder.sink(
        Outputs.MERGE_RESULTS,
        TopicCatalogue.MERGE_RESULTS,
        Serdes.ByteArray().serializer(),
        Names.MERGE);
    builder.sink(
        Outputs.POST_MERGE,
        TopicCatalogue.POST_MERGE,
        PostMerge.OUTPUT_SERDE.serializer(),
        Names.MERGE);
    builder.rejections(Names.POST_MERGE, Names.MERGE);
  }

  /**
   * The topics a topology's consumer reads: every source node's topics, under the deployment's
   * names. What a consumer-lag measure sums and what a Kafka user must be allowed to read.
   */
  public static Set<String> sourceTopics(Topology topology) {
    Set<String> topics = new TreeSet<>();
    for (TopologyDescription.Subtopology sub : topology.describe().subtopologies()) {
      for (TopologyDescription.Node node : sub.nodes()) {
        if (node instanceof TopologyDescription.Source source) {
          topics.addAll(source.topicSet());
        }
      }
    }
    return topics;
  }

  /**
   * What decides which tasks a topology has and which state each holds: per sub-topology, its
   * source topics and its stores, as 8 hex digits of their SHA-256. Two instances may share a
   * consumer group only with the same shape: with another, Kafka Streams numbers the tasks
   * otherwise and two instances could write the same store's changelog partition. Processors or
   * sinks added or removed inside a sub-topology do not change it.
   */
  public static String shape(Topology topology) {
    List<String> parts = new ArrayList<>();
    for (TopologyDescription.Subtopology sub : topology.describe().subtopologies()) {
      Set<String> sources = new TreeSet<>();
      Set<String> stores = new TreeSet<>();
      for (TopologyDescription.Node node : sub.nodes()) {
        if (node instanceof TopologyDescription.Source source) {
          sources.addAll(source.topicSet());
        } else if (node instanceof TopologyDescription.Processor processor) {
          stores.addAll(processor.stores());
        }
      }
      parts.add(sources + "" + stores);
    }
    parts.sort(null);
    return Sha256.hex(Sha256.digest(String.join(";", parts).getBytes(StandardCharsets.UTF_8)))
        .substring(0, 8);
  }

  /**
   * Adds sources, sinks and stages under the deployment's topic names. A child is added from the
   * {@link Output} its parent forwards through, so its type is checked here ({@link Output}).
   */
  private static final class Builder {
    private final Topology topology;
    private final TopologyConfig config;

    Builder(Topology topology, TopologyConfig config) {
      this.topology = topology;
      this.config = config;
    }

    void source(String name, Topic topic) {
      source(name, topic, Serdes.ByteArray().deserializer());
    }

    void source(String name, Topic topic, Deserializer<?> values) {
      topology.addSource(name, Serdes.String().deserializer(), values, config.topic(topic));
    }

    <V> void sink(Output<V> output, Topic topic, Serializer<V> serializer, String parent) {
      topology.addSink(
          output.child(), config.topic(topic), Serdes.String().serializer(), serializer, parent);
    }

    <V> void child(
        Output<V> output, ProcessorSupplier<String, V, Void, Void> supplier, String parent) {
      topology.addProcessor(output.child(), supplier, parent);
    }

    /**
     * A stage: a processor that may refuse what it reads. Its rejections go to its own counter
     * ({@link RejectionCounter}) and sink on {@code rejected-events.v1}; that is all a stage needs
     * to be wired for rejections.
     */
    <VIn> void stage(
        String name, ProcessorSupplier<String, VIn, Void, Void> supplier, String... parents) {
      topology.addProcessor(name, supplier, parents);
      rejections(name, name);
    }

    /** Stage {@code stage}'s rejections counter and sink, fed by processor {@code processor}. */
    void rejections(String stage, String processor) {
      child(Outputs.rejections(stage), () -> new RejectionCounter(stage), processor);
      sink(
          Outputs.rejectionsSink(stage),
          TopicCatalogue.REJECTED_EVENTS,
          Rejections.serializer(),
          Names.rejections(stage));
    }

    /** A stage that is the child its parent forwards {@code output} to. */
    <V> void stage(
        Output<V> output, ProcessorSupplier<String, V, Void, Void> supplier, String parent) {
      stage(output.child(), supplier, parent);
    }
  }
}
