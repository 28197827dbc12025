package dev.turnstile.topology.adapter.streams;

import dev.turnstile.topology.domain.merge.Patch;

/**
 * A value of {@code merge-inputs.v1} (schema {@code merge-input.v1}): one patch, re-keyed by its
 * merge key on the way to the {@code merge} processor.
 *
 * @param mergeKey the record key, repeated so the record reads on its own
 * @param patch the RFC 7396 patch with its source, event id and version
 */
record MergeInput(String mergeKey, Patch patch) {
  static final JsonSerde<MergeInput> SERDE = new JsonSerde<>(MergeInput.class);
}
