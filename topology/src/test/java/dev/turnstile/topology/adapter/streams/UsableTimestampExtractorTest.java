package dev.turnstile.topology.adapter.streams;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;

/** Issue 8, case 3: a record with timestamp -1 stopped the topology (FailOnInvalidTimestamp). */
class UsableTimestampExtractorTest {

  private final UsableTimestampExtractor extractor = new UsableTimestampExtractor();

  private static ConsumerRecord<Object, Object> record(long timestamp) {
    return new ConsumerRecord<>(
        "device-events.raw.v1",
        0,
        7,
        timestamp,
        TimestampType.CREATE_TIME,
        0,
        0,
        "k",
        new byte[0],
        new RecordHeaders(),
        Optional.empty());
  }

  @Test
  void aUsableTimestampIsKept() {
    long now = System.currentTimeMillis();
    assertThat(extractor.extract(record(now), now - 1000)).isEqualTo(now);
    assertThat(extractor.extract(record(0), now)).isZero();
  }

  @Test
  void noTimestampTakesThePartitionTimeOrTheClockForAPartitionsFirstRecord() {
    long partitionTime = System.currentTimeMillis() - 60_000;
    assertThat(extractor.extract(record(-1), partitionTime)).isEqualTo(partitionTime);
    long before = System.currentTimeMillis();
    assertThat(extractor.extract(record(-1), -1)).isBetween(before, System.currentTimeMillis());
  }

  @Test
  void aTimestampFarAheadOfTheClockTakesThePartitionTime() {
    long partitionTime = System.currentTimeMillis() - 60_000;
    long farAhead = System.currentTimeMillis() + Duration.ofDays(3650).toMillis();
    assertThat(extractor.extract(record(farAhead), partitionTime)).isEqualTo(partitionTime);
    long slightlyAhead = System.currentTimeMillis() + Duration.ofHours(1).toMillis();
    assertThat(extractor.extract(record(slightlyAhead), partitionTime)).isEqualTo(slightlyAhead);
  }
}
