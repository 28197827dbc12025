package dev.turnstile.topology.adapter.streams;

import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;

/** The time state is written and looked up at (docs/design.md, "Clocks"). */
final class Stamps {

  private Stamps() {}

  /**
   * Stream time, at least the record's timestamp: never earlier than what the task has already
   * seen, so a record backfilled with an old timestamp is remembered (a window store drops a write
   * older than its retention) and each write of a key lands in the same or a newer bucket. It is a
   * function of the input alone, so a replay stamps the same.
   */
  static long now(ProcessorContext<?, ?> context, Record<?, ?> record) {
    return Math.max(record.timestamp(), context.currentStreamTimeMs());
  }
}
