package dev.turnstile.topology.domain;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/** SHA-256 (FIPS 180-4), the one digest the topology's rules use. */
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
}
