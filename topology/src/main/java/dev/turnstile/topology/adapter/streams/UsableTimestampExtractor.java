package dev.turnstile.topology.adapter.streams;

import java.time.Duration;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.streams.processor.TimestampExtractor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The record timestamp when it is usable, else the partition's time: a record nobody could have
 * sent at that time is processed, never dropped or fatal.
 *
 * <p>The bridge stamps every record with its receive time, which is the arrival time the rules use
 * (dedup retention, reorder grace, expiry). Another writer may produce a timestamp of −1 (no
 * timestamp: Kafka Streams' default extractor stops the client on it) or one far in the future
 * (which would advance stream time and make every window store drop what follows as expired). A
 * timestamp below 0 or more than {@link #MAX_AHEAD} ahead of this pod's clock is replaced by the
 * partition time (the highest timestamp seen so far on the partition, deterministic on a replay),
 * or by this pod's clock for a partition's first record.
 */
public final class UsableTimestampExtractor implements TimestampExtractor {

  /** How far ahead of this pod's clock a record timestamp may be: a day, as the bridge allows. */
  public static final Duration MAX_AHEAD = Duration.ofDays(1);

  private static final Logger LOG = LoggerFactory.getLogger(UsableTimestampExtractor.class);

  @Override
  public long extract(ConsumerRecord<Object, Object> record, long partitionTime) {
    long timestamp = record.timestamp();
    long now = System.currentTimeMillis();
    if (timestamp >= 0 && timestamp <= now + MAX_AHEAD.toMillis()) {
      return timestamp;
    }
    long replacement = partitionTime >= 0 ? partitionTime : now;
    LOG.warn(
        "record {}-{}@{} has timestamp {}, which no sender could have meant; processed at {}",
        record.topic(),
        record.partition(),
        record.offset(),
        timestamp,
        replacement);
    return replacement;
  }
}
