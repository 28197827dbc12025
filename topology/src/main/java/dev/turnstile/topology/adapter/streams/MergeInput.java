package dev.turnstile.topology.adapter.streams;

import dev.turnstile.schemas.CloudEventHeaders;
import dev.turnstile.topology.domain.merge.Patch;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.processor.api.Record;

/**
 * A value of {@code merge-inputs.v1} (schema {@code merge-input.v1}): one patch, re-keyed by its
 * merge key on the way to the {@code merge} processor.
 *
 * @param mergeKey the record key, repeated so the record reads on its own
 * @param patch the RFC 7396 patch with its source, event id and version
 */
record MergeInput(String mergeKey, Patch patch) {
  static final JsonSerde<MergeInput> SERDE = new JsonSerde<>(MergeInput.class);

  /**
   * The {@code merge-inputs.v1} record of this input, made from the record it was derived from: its
   * timestamp, and of its headers only {@code ce_id}, which a {@code merge} rejection reports as
   * the refused event's id. The topic is internal and nothing else reads its headers, so the rest
   * (eight CloudEvents headers from a session, a dozen with the Service Bus properties from a
   * message) are not written, sent, stored and read again on every hop.
   */
  Record<String, MergeInput> record(Record<String, ?> from) {
    Headers headers = new RecordHeaders();
    Header id = from.headers().lastHeader(CloudEventHeaders.ID);
    if (id != null) {
      headers.add(id);
    }
    return new Record<>(mergeKey, this, from.timestamp(), headers);
  }
}
