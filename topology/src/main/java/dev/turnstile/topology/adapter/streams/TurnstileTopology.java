package dev.turnstile.topology.adapter.streams;

import dev.turnstile.schemas.TopicCatalogue;
import dev.turnstile.topology.config.TopologyConfig;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.Topology;

/**
 * Builds Turnstile's topology. Tests build it through this same method.
 *
 * <pre>
 * device-events.raw.v1 -> device-event-dedup -> device-session -> device-sessions.v1
 *                                 \                    \
 *                                  +--------------------+-> rejected-events.v1
 * </pre>
 */
public final class TurnstileTopology {

  private TurnstileTopology() {}

  public static Topology build(TopologyConfig config) {
    Topology topology = new Topology();
    topology.addSource(
        Names.DEVICE_EVENTS_SOURCE,
        Serdes.String().deserializer(),
        Serdes.ByteArray().deserializer(),
        config.topic(TopicCatalogue.DEVICE_EVENTS_RAW));
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
            config.sessionPolicy(), config.punctuateInterval(), config.maxDuePerPunctuation()),
        Names.DEVICE_EVENT_DEDUP);
    topology.addSink(
        Names.DEVICE_SESSIONS_SINK,
        config.topic(TopicCatalogue.DEVICE_SESSIONS),
        Serdes.String().serializer(),
        Serdes.ByteArray().serializer(),
        Names.DEVICE_SESSION);
    topology.addSink(
        Names.REJECTED_EVENTS_SINK,
        config.topic(TopicCatalogue.REJECTED_EVENTS),
        Serdes.String().serializer(),
        Serdes.ByteArray().serializer(),
        Names.DEVICE_EVENT_DEDUP,
        Names.DEVICE_SESSION);
    return topology;
  }
}
