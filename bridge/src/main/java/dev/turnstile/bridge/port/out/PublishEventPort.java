package dev.turnstile.bridge.port.out;

import io.cloudevents.CloudEvent;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;

/**
 * Capability: write one event durably to a topic. The stage completes only once the write is
 * acknowledged ({@code acks=all} for the Kafka adapter), or fails with a {@link PublishException}
 * that says whether a retry can help.
 *
 * <p>Implementations never block the caller: when too many writes are in flight the stage fails at
 * once with {@link PublishException.Reason#SATURATED}.
 */
public interface PublishEventPort {

  /**
   * @param topic full topic name (prefix applied)
   * @param key record key, used for partitioning; not null
   * @param event the CloudEvent; its attributes travel as headers (binary content mode) and its
   *     data, unchanged, as the record value
   * @return completes with the write's coordinates once acknowledged
   */
  default CompletionStage<PublishedEvent> publish(String topic, String key, CloudEvent event) {
    return publish(topic, key, event, Map.of());
  }

  /**
   * As {@link #publish(String, String, CloudEvent)}, with headers that are not CloudEvents
   * attributes (whose names cannot carry dashes), e.g. {@code sb-prop-mergeKey}.
   *
   * @param headers extra header names and UTF-8 values, written after the event's attributes; a
   *     name must not start with {@code ce_}
   */
  CompletionStage<PublishedEvent> publish(
      String topic, String key, CloudEvent event, Map<String, String> headers);

  /**
   * Writes events with the same key as one sequence, in order: to the same partition, by the same
   * producer, each sent after the one before, so the partition keeps their order. Either every
   * event is taken or none is: when they do not all fit in the writes allowed in flight, every
   * stage fails at once with {@link PublishException.Reason#SATURATED}.
   *
   * <p>The default publishes one after the other; an adapter with a bound on writes in flight
   * overrides it to take the whole sequence at once.
   *
   * @return one stage per event, in the same order
   */
  default List<CompletionStage<PublishedEvent>> publishAll(
      String topic, String key, List<CloudEvent> events) {
    return events.stream().map(event -> publish(topic, key, event)).toList();
  }

  /** Where an acknowledged event landed. */
  record PublishedEvent(String topic, int partition, long offset) {}
}
