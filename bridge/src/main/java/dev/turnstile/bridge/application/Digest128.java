package dev.turnstile.bridge.application;

import dev.turnstile.schemas.Sha256;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;

/**
 * The first 128 bits of a SHA-256 digest (FIPS 180-4), as two longs: how the bridge's duplicate
 * cache names an event and its content without keeping any object of the request. Two different
 * inputs share one by chance with probability 2<sup>-128</sup>; among the 100,000 entries of the
 * default cache, a lookup meets a wrong one with probability about 3 × 10<sup>-34</sup>, far below
 * a hardware fault's.
 *
 * <p>Input is fed as tagged, length-prefixed fields ({@link Builder}), so no two different field
 * sequences are the same bytes.
 */
record Digest128(long high, long low) {

  /** The digest of an event's identity: its device and its id. */
  static Digest128 ofEvent(String deviceId, String eventId) {
    return Builder.get().text(deviceId).text(eventId).digest();
  }

  /** The digest's own bits: uniform already, and cheaper than a record's generated hash. */
  @Override
  public int hashCode() {
    return (int) low;
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof Digest128 that && high == that.high && low == that.low;
  }

  /**
   * Canonical bytes for a digest, fed field by field. {@link #get} lends the thread's own builder
   * (its buffer and {@code MessageDigest} reused: two per event otherwise made a tenth of the
   * bridge's garbage in batches); {@link #digest} gives it back.
   */
  static final class Builder {
    private static final ThreadLocal<Builder> OWN = ThreadLocal.withInitial(Builder::new);

    private final MessageDigest sha256 = Sha256.newDigest();
    private byte[] bytes = new byte[256];
    private int length;
    private boolean lent;

    /** The thread's builder, empty; a new one while the thread's is lent out. */
    static Builder get() {
      Builder own = OWN.get();
      if (own.lent) {
        return new Builder();
      }
      own.lent = true;
      own.length = 0;
      return own;
    }

    /** One byte that says what follows. */
    Builder tag(char tag) {
      ensure(1);
      bytes[length++] = (byte) tag;
      return this;
    }

    /** Eight bytes, big-endian. */
    Builder number(long value) {
      ensure(8);
      for (int shift = 56; shift >= 0; shift -= 8) {
        bytes[length++] = (byte) (value >>> shift);
      }
      return this;
    }

    /** The UTF-8 bytes of {@code value}, after their length. */
    Builder text(String value) {
      int chars = value.length();
      ensure(8 + chars);
      int at = length + 8;
      for (int i = 0; i < chars; i++) {
        char c = value.charAt(i);
        if (c >= 0x80) {
          return textUtf8(value);
        }
        bytes[at++] = (byte) c;
      }
      number(chars);
      length += chars;
      return this;
    }

    private Builder textUtf8(String value) {
      byte[] utf8 = value.getBytes(StandardCharsets.UTF_8);
      number(utf8.length);
      ensure(utf8.length);
      System.arraycopy(utf8, 0, bytes, length, utf8.length);
      length += utf8.length;
      return this;
    }

    Digest128 digest() {
      sha256.update(bytes, 0, length);
      byte[] d = sha256.digest();
      lent = false;
      return new Digest128(longAt(d, 0), longAt(d, 8));
    }

    private void ensure(int more) {
      if (length + more > bytes.length) {
        bytes = java.util.Arrays.copyOf(bytes, Math.max(bytes.length * 2, length + more));
      }
    }

    private static long longAt(byte[] b, int from) {
      long value = 0;
      for (int i = from; i < from + 8; i++) {
        value = (value << 8) | (b[i] & 0xFF);
      }
      return value;
    }
  }
}
