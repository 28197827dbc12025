package dev.turnstile.topology.adapter.streams;

import dev.turnstile.schemas.CloudEventHeaders;
import dev.turnstile.schemas.RejectionReason;
import dev.turnstile.schemas.StrictJson;
import dev.turnstile.topology.domain.dedup.FirstSeen;
import dev.turnstile.topology.domain.merge.MergeResult;
import org.apache.kafka.streams.processor.api.Record;

/**
 * Reads a {@code merge-results.v1} value for the post-merge dedup stage: a {@link MergeResult}
 * whose {@code mergeResultId} is the record's {@code ce_id} (the identity dedup uses) and whose
 * merge key is the record key. Its content is the whole value: a merge result is determined by its
 * id, so two different values under one id mean a second writer, and are reported as a conflict.
 */
final class MergeResultReader implements EventDedupProcessor.Reader<MergeResult> {

  @Override
  public MergeResult read(Record<String, byte[]> record)
      throws EventDedupProcessor.UnreadableRecordException {
    if (record.value() == null) {
      throw malformed("the value is null");
    }
    MergeResult result;
    try {
      result = StrictJson.ownRecords().readValue(record.value(), MergeResult.class);
    } catch (StrictJson.MalformedJsonException e) {
      throw malformed(e.getMessage());
    }
    if (!result.mergeResultId().equals(HeaderText.of(record.headers(), CloudEventHeaders.ID))) {
      throw malformed("its mergeResultId is not the record's ce_id");
    }
    if (!result.mergeKey().equals(record.key())) {
      throw malformed("its mergeKey is not the record key");
    }
    return result;
  }

  @Override
  public long fingerprint(MergeResult result, byte[] raw) {
    return FirstSeen.fingerprint(raw);
  }

  private static EventDedupProcessor.UnreadableRecordException malformed(String detail) {
    return new EventDedupProcessor.UnreadableRecordException(
        RejectionReason.MALFORMED_EVENT, "not a merge-result.v1: " + detail);
  }
}
