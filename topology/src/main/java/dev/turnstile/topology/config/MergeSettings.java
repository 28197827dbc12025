package dev.turnstile.topology.config;

import com.fasterxml.jackson.core.JsonPointer;
import dev.turnstile.topology.domain.merge.MergeState;
import java.util.Optional;

/**
 * How the merge stage reads its inputs; keys {@code topology.merge.*}, see {@link TopologyConfig}.
 *
 * @param keyProperty application property with a Service Bus message's merge key
 * @param keyPointer pointer to the merge key in the body; when present it is used, not the property
 * @param versionProperty application property with an explicit version, if any
 * @param versionPointer pointer to an explicit version in the body; wins over the property
 * @param sessionsEnabled whether closed device sessions are merged under their session reference
 * @param maxDocumentBytes largest input body and merged document, UTF-8 JSON bytes
 * @param maxPatches patches retained per merge key before compaction
 */
public record MergeSettings(
    String keyProperty,
    Optional<JsonPointer> keyPointer,
    Optional<String> versionProperty,
    Optional<JsonPointer> versionPointer,
    boolean sessionsEnabled,
    int maxDocumentBytes,
    int maxPatches) {

  static MergeSettings from(ConfigValues values) {
    return new MergeSettings(
        values.string("topology.merge.servicebus.key-property", "mergeKey"),
        pointer(values, "topology.merge.servicebus.key-pointer"),
        optional(values, "topology.merge.servicebus.version-property"),
        pointer(values, "topology.merge.servicebus.version-pointer"),
        values.bool("topology.merge.sessions.enabled", true),
        values.integer("topology.merge.max-document-bytes", 256 * 1024, 2),
        values.integer("topology.merge.max-patches", MergeState.DEFAULT_MAX_PATCHES, 1));
  }

  private static Optional<String> optional(ConfigValues values, String key) {
    String value = values.string(key, "");
    return value.isEmpty() ? Optional.empty() : Optional.of(value);
  }

  private static Optional<JsonPointer> pointer(ConfigValues values, String key) {
    Optional<String> text = optional(values, key);
    try {
      return text.map(JsonPointer::compile);
    } catch (IllegalArgumentException e) {
      throw new ConfigException(
          key, "must be a JSON pointer such as /sessionId: " + e.getMessage());
    }
  }
}
