package dev.turnstile.topology.domain.dedup;

import dev.turnstile.schemas.Sha256;
import java.nio.ByteBuffer;
import java.util.HexFormat;
import java.util.Optional;

/**
 * Dedup's one rule (docs/design.md, "Dedup"): the first occurrence of an id wins; a later one
 * within the retention is a duplicate, and one whose content differs from the first is a
 * conflicting duplicate: still dropped, but reported, because a device that reuses an id for other
 * content has a bug its team must see.
 *
 * <p>What is remembered per id is this record: when it was first seen and a 64-bit fingerprint of
 * its content (16 bytes, {@link #toBytes()}).
 *
 * @param firstSeenMillis arrival time of the first occurrence, epoch ms
 * @param fingerprint {@link #fingerprint(byte[])} of the first occurrence's content
 */
public record FirstSeen(long firstSeenMillis, long fingerprint) {

  /** What a newly read occurrence is, given what was remembered for its id. */
  public enum Verdict {
    /** Nothing remembered: this occurrence is the one that counts. */
    FIRST,
    /** Seen before with the same content: dropped and counted. */
    DUPLICATE,
    /** Seen before with other content: dropped, counted apart and reported. */
    CONFLICT
  }

  /** Judges an occurrence with content {@code fingerprint} against what was remembered. */
  public static Verdict judge(Optional<FirstSeen> remembered, long fingerprint) {
    if (remembered.isEmpty()) {
      return Verdict.FIRST;
    }
    return remembered.get().fingerprint() == fingerprint ? Verdict.DUPLICATE : Verdict.CONFLICT;
  }

  /**
   * The first 64 bits of the content's SHA-256: enough to tell two contents apart for reporting (a
   * collision would only hide one conflict), small enough to keep per id.
   */
  public static long fingerprint(byte[] content) {
    return ByteBuffer.wrap(Sha256.digest(content)).getLong();
  }

  /** The fingerprint as 16 lower-case hex digits, as rejections show it. */
  public static String hex(long fingerprint) {
    return HexFormat.of().toHexDigits(fingerprint);
  }

  /** Stored form: first-seen time then fingerprint, big-endian, 16 bytes. */
  public byte[] toBytes() {
    return ByteBuffer.allocate(16).putLong(firstSeenMillis).putLong(fingerprint).array();
  }

  /**
   * Reads {@link #toBytes()}.
   *
   * @throws IllegalArgumentException unless {@code bytes} has 16 bytes
   */
  public static FirstSeen fromBytes(byte[] bytes) {
    if (bytes.length != 16) {
      throw new IllegalArgumentException("a first-seen entry has 16 bytes, got " + bytes.length);
    }
    ByteBuffer buffer = ByteBuffer.wrap(bytes);
    return new FirstSeen(buffer.getLong(), buffer.getLong());
  }
}
