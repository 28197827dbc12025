package dev.turnstile.topology.adapter.streams;

import dev.turnstile.topology.domain.dedup.FirstSeen;
import java.time.Instant;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a dedup stage tells about the copies it drops: metrics {@code duplicates-total} and {@code
 * duplicate-conflicts-total} (group {@code stream-turnstile-dedup-metrics}, tag {@code
 * turnstile-dedup-id} = the stage), and a line on {@code dev.turnstile.duplicates} each: duplicates
 * are information about the field.
 */
final class DuplicateSensors {

  private static final Logger DUPLICATES = LoggerFactory.getLogger("dev.turnstile.duplicates");

  private final Sensor duplicates;
  private final Sensor conflicts;

  DuplicateSensors(ProcessorContext<?, ?> context, String stage) {
    this.duplicates = sensor(context, stage, "duplicates");
    this.conflicts = sensor(context, stage, "duplicate-conflicts");
  }

  private static Sensor sensor(ProcessorContext<?, ?> context, String stage, String name) {
    return context
        .metrics()
        .addRateTotalSensor("turnstile-dedup", stage, name, Sensor.RecordingLevel.INFO);
  }

  /** A copy with the first occurrence's content: counted and logged. */
  void duplicate(String source, String id, FirstSeen first, long againAtMillis) {
    duplicates.record();
    if (DUPLICATES.isInfoEnabled()) {
      DUPLICATES.info(
          "duplicate dropped: source={} id={} firstSeenAt={} againAt={}",
          source,
          id,
          Instant.ofEpochMilli(first.firstSeenMillis()),
          Instant.ofEpochMilli(againAtMillis));
    }
  }

  /**
   * A copy with other content: counted apart and logged.
   *
   * @return the rejection's detail, both fingerprints in it
   */
  String conflict(String source, String id, FirstSeen first, long fingerprint) {
    conflicts.record();
    String detail =
        "id %s from %s was first seen at %s with content %s; this copy has content %s and is dropped (first wins)"
            .formatted(
                id,
                source,
                Instant.ofEpochMilli(first.firstSeenMillis()),
                FirstSeen.hex(first.fingerprint()),
                FirstSeen.hex(fingerprint));
    DUPLICATES.warn("conflicting duplicate dropped: {}", detail);
    return detail;
  }
}
