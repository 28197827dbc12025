package dev.turnstile.topology.domain.merge;

import dev.turnstile.schemas.Sha256;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.Objects;
import java.util.TreeSet;

/**
 * A fixed-size fingerprint of the set of events that contributed to a merge, from which the {@link
 * MergeResult#mergeResultId()} is derived.
 *
 * <p>Why not hash the sorted list of contributions directly: the merge state keeps only its newest
 * patches, so it cannot list every contribution once older ones are compacted. Instead each
 * contribution's SHA-256 is added into a 256-bit sum (modulo 2<sup>256</sup>, an incremental set
 * hash in the style of Bellare and Micciancio's AdHash), alongside the count. Addition commutes, so
 * the fingerprint is a function of the set alone: any arrival order, a restart or a replay gives
 * the same value, and {@link #of(Collection)} over the full set equals adding one by one. Callers
 * add each contribution once; {@link MergeState} guarantees that.
 *
 * <p>Serialized form ({@link #toBytes()}): 40 bytes, the count as a big-endian long, then the sum
 * as 32 big-endian bytes.
 */
public final class ContributionDigest {

  /** The digest of no contribution. */
  public static final ContributionDigest EMPTY = new ContributionDigest(0, BigInteger.ZERO);

  private static final int SUM_BYTES = 32;
  private static final BigInteger MODULUS = BigInteger.ONE.shiftLeft(8 * SUM_BYTES);
  private static final byte[] ID_DOMAIN =
      "turnstile/merge-result-id/v1".getBytes(StandardCharsets.UTF_8);

  private final long count;
  private final BigInteger sum;

  private ContributionDigest(long count, BigInteger sum) {
    this.count = count;
    this.sum = sum;
  }

  /** The digest of a set of contributions; duplicates in {@code contributions} count once. */
  public static ContributionDigest of(Collection<Contribution> contributions) {
    ContributionDigest digest = EMPTY;
    for (Contribution contribution : new TreeSet<>(contributions)) {
      digest = digest.with(contribution);
    }
    return digest;
  }

  /** Restores a digest from {@link #toBytes()}. */
  public static ContributionDigest fromBytes(byte[] bytes) {
    if (bytes.length != 8 + SUM_BYTES) {
      throw new IllegalArgumentException("a contribution digest is 40 bytes, got " + bytes.length);
    }
    ByteBuffer buffer = ByteBuffer.wrap(bytes);
    long count = buffer.getLong();
    byte[] sum = new byte[SUM_BYTES];
    buffer.get(sum);
    return new ContributionDigest(count, new BigInteger(1, sum));
  }

  /** This digest with one more contribution, which must not be in it already. */
  public ContributionDigest with(Contribution contribution) {
    byte[] hash = Sha256.digest(lengthPrefixed(contribution.source(), contribution.eventId()));
    return new ContributionDigest(count + 1, sum.add(new BigInteger(1, hash)).mod(MODULUS));
  }

  /** How many contributions the digest covers. */
  public long count() {
    return count;
  }

  /**
   * The merge-result ID for {@code mergeKey}: lower-case hex SHA-256 (64 characters) of a domain
   * tag, the merge key, the count and the sum. Same key and same set: same ID; any difference in
   * either: a different ID (up to SHA-256 collisions).
   */
  public String mergeResultId(String mergeKey) {
    byte[] key = lengthPrefixed(mergeKey);
    ByteBuffer input = ByteBuffer.allocate(ID_DOMAIN.length + key.length + 8 + SUM_BYTES);
    input.put(ID_DOMAIN).put(key).put(toBytes());
    return Sha256.hex(input.array());
  }

  /** The 40-byte serialized form, see the class comment. */
  public byte[] toBytes() {
    byte[] magnitude = sum.toByteArray();
    ByteBuffer buffer = ByteBuffer.allocate(8 + SUM_BYTES).putLong(count);
    // toByteArray is minimal and may carry a sign byte: left-pad or drop it to exactly 32 bytes.
    int significant = Math.min(magnitude.length, SUM_BYTES);
    buffer.position(8 + SUM_BYTES - significant);
    buffer.put(magnitude, magnitude.length - significant, significant);
    return buffer.array();
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof ContributionDigest that && count == that.count && sum.equals(that.sum);
  }

  @Override
  public int hashCode() {
    return Objects.hash(count, sum);
  }

  @Override
  public String toString() {
    return "ContributionDigest[count=" + count + ", sum=" + sum.toString(16) + "]";
  }

  /** Each string as its UTF-8 length then its bytes, so ("ab","c") and ("a","bc") differ. */
  private static byte[] lengthPrefixed(String... parts) {
    int size = 0;
    byte[][] encoded = new byte[parts.length][];
    for (int i = 0; i < parts.length; i++) {
      encoded[i] = parts[i].getBytes(StandardCharsets.UTF_8);
      size += 4 + encoded[i].length;
    }
    ByteBuffer buffer = ByteBuffer.allocate(size);
    for (byte[] part : encoded) {
      buffer.putInt(part.length).put(part);
    }
    return buffer.array();
  }
}
