package dev.turnstile.topology.config;

import com.fasterxml.jackson.core.JsonPointer;
import dev.turnstile.runtime.config.InvalidConfigurationException;
import dev.turnstile.runtime.config.Settings;
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

  /**
   * Largest state-store value the merge stage may write: its changelog record must fit Kafka's
   * default {@code max.request.size} and {@code max.message.bytes} (1 MiB) with room for headers.
   */
  public static final int MAX_STORED_STATE_BYTES = 900 * 1024;

  /**
   * @throws InvalidConfigurationException when the stored state of one merge key (a base document
   *     and {@code max-patches} patches, each up to {@code max-document-bytes}) could outgrow a
   *     changelog record: the task would then fail on every replay
   */
  static MergeSettings from(ConfigValues values) {
    Settings s = values.settings();
    MergeSettings settings =
        new MergeSettings(
            s.string("topology.merge.servicebus.key-property"),
            pointer(s, "topology.merge.servicebus.key-pointer"),
            optional(s, "topology.merge.servicebus.version-property"),
            pointer(s, "topology.merge.servicebus.version-pointer"),
            s.bool("topology.merge.sessions.enabled"),
            s.integer("topology.merge.max-document-bytes"),
            s.integer("topology.merge.max-patches"));
    long worstCase = (long) (settings.maxPatches() + 1) * settings.maxDocumentBytes();
    if (worstCase > MAX_STORED_STATE_BYTES) {
      throw InvalidConfigurationException.of(
          "topology.merge.max-patches",
          "× topology.merge.max-document-bytes is too large: ("
              + settings.maxPatches()
              + " + 1) × "
              + settings.maxDocumentBytes()
              + " bytes could exceed "
              + MAX_STORED_STATE_BYTES
              + " bytes of stored state per merge key, more than a changelog record can hold");
    }
    return settings;
  }

  private static Optional<String> optional(Settings s, String key) {
    String value = s.string(key);
    return value == null || value.isEmpty() ? Optional.empty() : Optional.of(value);
  }

  /** Checked by the model's validator already. */
  private static Optional<JsonPointer> pointer(Settings s, String key) {
    return optional(s, key).map(JsonPointer::compile);
  }
}
