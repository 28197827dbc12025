package dev.turnstile.schemas;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * SHA-256 (FIPS 180-4), the one digest Turnstile's rules use: the topology's merge-result IDs and
 * content fingerprints, the bridge's duplicate cache. One helper, so every process means the same
 * bytes by "the SHA-256 of".
 */
public final class Sha256 {

  private static final MessageDigest PROTOTYPE = instance();

  private Sha256() {}

  /** The 32-byte digest of {@code input}. */
  public static byte[] digest(byte[] input) {
    return digest(input, 0, input.length);
  }

  /** The 32-byte digest of {@code length} bytes of {@code input} from {@code offset}. */
  public static byte[] digest(byte[] input, int offset, int length) {
    MessageDigest digest = newDigest();
    digest.update(input, offset, length);
    return digest.digest();
  }

  /**
   * A fresh SHA-256 {@link MessageDigest}, for input fed in parts. Cloned from one instance: the
   * provider lookup of {@code getInstance} costs more than hashing a small event.
   */
  public static MessageDigest newDigest() {
    try {
      return (MessageDigest) PROTOTYPE.clone();
    } catch (CloneNotSupportedException e) {
      return instance();
    }
  }

  private static MessageDigest instance() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java platform provides SHA-256", e);
    }
  }

  /** The digest of {@code input} as 64 lower-case hex characters. */
  public static String hex(byte[] input) {
    return HexFormat.of().formatHex(digest(input));
  }
}
