package dev.turnstile.topology;

import dev.turnstile.topology.adapter.streams.Names;

/**
 * The topology's stages that drop duplicates, as their metrics name them: the {@code
 * turnstile-dedup-id} tag of {@code duplicates-total} (group {@code
 * stream-turnstile-dedup-metrics}; exported as {@code
 * kafka_stream_turnstile_dedup_duplicates_total{turnstile_dedup_id=...}}).
 */
public enum DedupStage {
  /** Device events: a copy of an event id the device's state remembers. */
  DEVICE_EVENTS(Names.DEVICE_EVENT_DEDUP),
  /** Service Bus messages: a redelivered message id. */
  SERVICEBUS_MESSAGES(Names.SERVICEBUS_MESSAGE_DEDUP);

  private final String tag;

  DedupStage(String tag) {
    this.tag = tag;
  }

  /** The stage's processor name, the value of its metrics' {@code turnstile-dedup-id} tag. */
  public String tag() {
    return tag;
  }
}
