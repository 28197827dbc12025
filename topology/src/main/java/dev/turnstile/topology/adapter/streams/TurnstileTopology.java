package dev.turnstile.topology.adapter.streams;

import dev.turnstile.schemas.TopicCatalogue;
import dev.turnstile.topology.config.MergeSettings;
import dev.turnstile.topology.config.TopologyConfig;
import dev.turnstile.topology.domain.merge.CompletenessRule;
import dev.turnstile.topology.domain.merge.PostMergeStep;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.Topology;

/**
 * Builds Turnstile's topology. Tests build it through this same method.
 *
 * <pre>
 * device-events.raw.v1 -> device-event-dedup -> device-session -> device-sessions.v1
 *                                                      | Closed with a sessionRef
 *                                                      v
 *                                              session-merge-input --+
 *                                                                    v
 * servicebus-messages.raw.v1 -> servicebus-message-dedup      merge-inputs.v1 (key: merge key)
 *                                  -> servicebus-merge-input --^     |
 *                                                                    v
 *                                       merge-results.v1 &lt;- merge (merge-store)
 *                                              |
 *                                              v
 *                    post-merge (post-merge-dedup-store, post-merge-emitted-store) -> post-merge.v1
 *
 * every stage except the sinks may also write rejected-events.v1
 * </pre>
 *
 * <p><b>Why {@code merge-inputs.v1}.</b> The merge store must be keyed by merge key, but session
 * events arrive keyed by device and Service Bus messages by a per-entity key, on different topics:
 * in place, one merge key's records would be processed by different tasks with different stores. So
 * both feeders re-key their patches by merge key and write them to {@code merge-inputs.v1}, whose
 * source feeds {@code merge}: every patch of one key lands on one partition, hence one task. It is
 * a user topic declared in {@link TopicCatalogue}, not an internal repartition topic, so its name,
 * partitions and retention are declared (and checked against the k8s manifests) like every other
 * topic, do not depend on {@code application.id}, and the merge stage can be resumed or replayed
 * from it on its own. Under exactly-once the write to it commits with the feeders' input offsets.
 * The price: Kafka Streams does not purge it after commit, so its retention bounds it. Likewise
 * {@code post-merge} reads {@code merge-results.v1} rather than being a child of {@code merge}: the
 * design wants the two stages resumable independently.
 */
public final class TurnstileTopology {

  private TurnstileTopology() {}

  /** The topology with the default post-merge step, a settled charging session. */
  public static Topology build(TopologyConfig config) {
    return build(config, CompletenessRule.settledChargingSession());
  }

  public static Topology build(TopologyConfig config, PostMergeStep postMergeStep) {
    Topology topology = new Topology();
    MergeSettings merge = config.merge();
    addDeviceSessions(topology, config, merge.sessionsEnabled());
    addServiceBusMergeInputs(topology, config, merge);
    addMerge(topology, config, merge);
    addPostMerge(topology, config, postMergeStep);
    List<String> rejecting = new ArrayList<>();
    rejecting.add(Names.DEVICE_EVENT_DEDUP);
    rejecting.add(Names.DEVICE_SESSION);
    rejecting.add(Names.SERVICEBUS_MESSAGE_DEDUP);
    rejecting.add(Names.SERVICEBUS_MERGE_INPUT);
    rejecting.add(Names.MERGE);
    rejecting.add(Names.POST_MERGE);
    topology.addProcessor(
        Names.REJECTED_EVENTS, RejectionCounter::new, rejecting.toArray(String[]::new));
    sink(
        topology,
        Names.REJECTED_EVENTS_SINK,
        config,
        TopicCatalogue.REJECTED_EVENTS,
        List.of(Names.REJECTED_EVENTS));
    return topology;
  }

  private static void addDeviceSessions(
      Topology topology, TopologyConfig config, boolean mergeSessions) {
    source(topology, Names.DEVICE_EVENTS_SOURCE, config, TopicCatalogue.DEVICE_EVENTS_RAW);
    topology.addProcessor(
        Names.DEVICE_EVENT_DEDUP,
        EventDedupProcessor.supplier(
            Names.DEVICE_EVENT_DEDUP,
            Names.DEVICE_EVENT_DEDUP_STORE,
            config.dedupRetention(),
            Names.DEVICE_SESSION),
        Names.DEVICE_EVENTS_SOURCE);
    topology.addProcessor(
        Names.DEVICE_SESSION,
        DeviceSessionProcessor.supplier(
            config.sessionPolicy(),
            config.punctuateInterval(),
            config.maxDuePerPunctuation(),
            mergeSessions,
            config.maxDeviceStateBytes()),
        Names.DEVICE_EVENT_DEDUP);
    sink(
        topology,
        Names.DEVICE_SESSIONS_SINK,
        config,
        TopicCatalogue.DEVICE_SESSIONS,
        List.of(Names.DEVICE_SESSION));
    if (mergeSessions) {
      topology.addProcessor(
          Names.SESSION_MERGE_INPUT, SessionMergeInputProcessor::new, Names.DEVICE_SESSION);
    }
  }

  private static void addServiceBusMergeInputs(
      Topology topology, TopologyConfig config, MergeSettings merge) {
    source(
        topology, Names.SERVICEBUS_MESSAGES_SOURCE, config, TopicCatalogue.SERVICEBUS_MESSAGES_RAW);
    topology.addProcessor(
        Names.SERVICEBUS_MESSAGE_DEDUP,
        EventDedupProcessor.supplier(
            Names.SERVICEBUS_MESSAGE_DEDUP,
            Names.SERVICEBUS_MESSAGE_DEDUP_STORE,
            config.dedupRetention(),
            Names.SERVICEBUS_MERGE_INPUT),
        Names.SERVICEBUS_MESSAGES_SOURCE);
    topology.addProcessor(
        Names.SERVICEBUS_MERGE_INPUT,
        () -> new ServiceBusMergeInputProcessor(merge),
        Names.SERVICEBUS_MESSAGE_DEDUP);
    List<String> feeders = new ArrayList<>(List.of(Names.SERVICEBUS_MERGE_INPUT));
    if (merge.sessionsEnabled()) {
      feeders.add(Names.SESSION_MERGE_INPUT);
    }
    sink(topology, Names.MERGE_INPUTS_SINK, config, TopicCatalogue.MERGE_INPUTS, feeders);
  }

  private static void addMerge(Topology topology, TopologyConfig config, MergeSettings merge) {
    source(topology, Names.MERGE_INPUTS_SOURCE, config, TopicCatalogue.MERGE_INPUTS);
    topology.addProcessor(
        Names.MERGE,
        MergeProcessor.supplier(merge.maxPatches(), merge.maxDocumentBytes()),
        Names.MERGE_INPUTS_SOURCE);
    sink(
        topology,
        Names.MERGE_RESULTS_SINK,
        config,
        TopicCatalogue.MERGE_RESULTS,
        List.of(Names.MERGE));
  }

  private static void addPostMerge(Topology topology, TopologyConfig config, PostMergeStep step) {
    source(topology, Names.MERGE_RESULTS_SOURCE, config, TopicCatalogue.MERGE_RESULTS);
    topology.addProcessor(
        Names.POST_MERGE,
        PostMergeProcessor.supplier(step, config.dedupRetention()),
        Names.MERGE_RESULTS_SOURCE);
    sink(
        topology,
        Names.POST_MERGE_SINK,
        config,
        TopicCatalogue.POST_MERGE,
        List.of(Names.POST_MERGE));
  }

  private static void source(
      Topology topology, String name, TopologyConfig config, dev.turnstile.schemas.Topic topic) {
    topology.addSource(
        name,
        Serdes.String().deserializer(),
        Serdes.ByteArray().deserializer(),
        config.topic(topic));
  }

  private static void sink(
      Topology topology,
      String name,
      TopologyConfig config,
      dev.turnstile.schemas.Topic topic,
      List<String> parents) {
    topology.addSink(
        name,
        config.topic(topic),
        Serdes.String().serializer(),
        Serdes.ByteArray().serializer(),
        parents.toArray(String[]::new));
  }
}
