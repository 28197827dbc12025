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

  private Sha256() {}

  /** The 32-byte digest of {@code input}. */
  public static byte[] digest(byte[] input) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(input);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java platform provides SHA-256", e);
    }
  }

  /** The digest of {@code input} as 64 lower-case hex characters. */
  public static String hex(byte[] input) {
    return HexFormat.of().formatHex(digest(input));
  }
}
