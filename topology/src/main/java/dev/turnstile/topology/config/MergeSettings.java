package dev.turnstile.topology.config;

import static dev.turnstile.topology.config.TopologyConfigModel.*;

import com.fasterxml.jackson.core.JsonPointer;
import dev.turnstile.runtime.config.Settings;
import java.time.Duration;
import java.util.Optional;

/**
 * How the merge stage reads its inputs: the keys {@code topology.merge.*}, each component the key
 * of the same name in {@link TopologyConfigModel} (a blank pointer or property is empty). The model
 * checks that {@code maxPatches} documents of {@code maxDocumentBytes} fit {@link
 * #MAX_STORED_STATE_BYTES}.
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
