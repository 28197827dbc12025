package dev.turnstile.topology.config;

import static dev.turnstile.topology.config.TopologyConfigModel.*;

import com.fasterxml.jackson.core.JsonPointer;
import dev.turnstile.runtime.config.Settings;
import java.time.Duration;
import java.util.Optional;

/**
 * How the merge stage reads its inputs; keys {@code topology.merge.*}, declared in {@link
 * TopologyConfigModel}.
 *
 * @param keyProperty application property with a Service Bus message's merge key
 * @param keyPointer pointer to the merge key in the body; when present it is used, not the property
 * @param versionProperty application property with an explicit version, if any
 * @param versionPointer pointer to an explicit version in the body; wins over the property
 * @param sessionsEnabled whether closed device sessions are merged under their session reference
 * @param maxDocumentBytes largest input body and merged document, UTF-8 JSON bytes
 * @param maxPatches patches retained per merge key before compaction; with {@code maxDocumentBytes}
 *     within {@link #MAX_STORED_STATE_BYTES}, as the model checks
 * @param retention how long a merge key's document is kept after its last patch
 */
public record MergeSettings(
    String keyProperty,
    Optional<JsonPointer> keyPointer,
    Optional<String> versionProperty,
    Optional<JsonPointer> versionPointer,
    boolean sessionsEnabled,
    int maxDocumentBytes,
    int maxPatches,
    Duration retention) {

  /**
   * Largest state-store value the merge stage may write: its changelog record must fit Kafka's
   * default {@code max.request.size} and {@code max.message.bytes} (1 MiB) with room for headers.
   */
  public static final int MAX_STORED_STATE_BYTES = 900 * 1024;

  static MergeSettings from(ConfigValues values) {
    return from(values.settings());
  }

  static MergeSettings from(Settings s) {
    return new MergeSettings(
        s.get(MERGE_KEY_PROPERTY),
        s.get(MERGE_KEY_POINTER),
        s.get(MERGE_VERSION_PROPERTY),
        s.get(MERGE_VERSION_POINTER),
        s.get(MERGE_SESSIONS_ENABLED),
        s.get(MERGE_MAX_DOCUMENT_BYTES),
        s.get(MERGE_MAX_PATCHES),
        s.get(MERGE_RETENTION));
  }
}
