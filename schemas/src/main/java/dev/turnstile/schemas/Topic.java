package dev.turnstile.schemas;

import java.time.Duration;
import java.util.Objects;

/**
 * One topic of the catalogue: its base name, layout and contract.
 *
 * <p>Names follow {@code <dataset>.<stage>.v<major>}; a deployment may put a prefix in front (for
 * example {@code prod.}), which {@link #name(String)} applies.
 *
 * @param baseName name without prefix, e.g. {@code device-events.raw.v1}
 * @param partitions partition count at creation
 * @param replicationFactor replication factor in production (local runs use 1)
 * @param retention how long records are kept; {@code null} means forever (compacted topics)
 * @param cleanupPolicy {@code delete} or {@code compact}
 * @param key what the record key holds
 * @param valueSchema classpath resource of the value's JSON Schema (2020-12); null when the value
 *     is opaque to Turnstile (a raw Service Bus body)
 * @param writtenBy the process that writes it: {@code bridge} or {@code topology}
 */
public record Topic(
    String baseName,
    int partitions,
    short replicationFactor,
    Duration retention,
    String cleanupPolicy,
    String key,
    String valueSchema,
    String writtenBy) {

  public Topic {
    Objects.requireNonNull(baseName, "baseName");
    Objects.requireNonNull(writtenBy, "writtenBy");
    if (!baseName.matches("[a-z0-9-]+\\.[a-z0-9-]+\\.v[0-9]+")
        && !baseName.matches("[a-z0-9-]+\\.v[0-9]+")) {
      throw new IllegalArgumentException(
          "topic name must be <dataset>.<stage>.v<major>: " + baseName);
    }
    if (partitions < 1 || replicationFactor < 1) {
      throw new IllegalArgumentException("partitions and replication factor must be >= 1");
    }
  }

  /** The full topic name with the deployment's prefix ({@code ""} for none). */
  public String name(String prefix) {
    return prefix == null ? baseName : prefix + baseName;
  }

  /** The value schema's name, e.g. {@code device-event.v1}; null when the value has none. */
  public String valueSchemaName() {
    if (valueSchema == null) {
      return null;
    }
    String file = valueSchema.substring(valueSchema.lastIndexOf('/') + 1);
    return file.substring(0, file.length() - ".schema.json".length());
  }

  /**
   * {@code min.insync.replicas} for a replication factor: 2 from 3 replicas on, so that an {@code
   * acks=all} write survives the loss of one broker while one broker may be down; none below (a
   * single broker, or two, where 2 would stop every write during a broker restart).
   */
  public static java.util.OptionalInt minInSyncReplicas(int replicas) {
    return replicas >= 3 ? java.util.OptionalInt.of(2) : java.util.OptionalInt.empty();
  }

  /** Retention in milliseconds as Kafka's {@code retention.ms} wants it; -1 for forever. */
  public long retentionMs() {
    return retention == null ? -1L : retention.toMillis();
  }
}
