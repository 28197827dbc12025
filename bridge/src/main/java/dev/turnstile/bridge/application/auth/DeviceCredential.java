package dev.turnstile.bridge.application.auth;

import dev.turnstile.schemas.Identifier;
import dev.turnstile.schemas.Sha256;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import java.util.regex.Pattern;

/**
 * One device credential as the bridge stores it: the id of a bearer token, the devices it may send
 * for, and a salted SHA-256 digest of the token. The token itself is never stored.
 *
 * <p>A token is {@code <id>.<secret>}: {@code id} is 16 hex digits naming the credential (not a
 * secret: it lets the bridge find the one digest to check), {@code secret} 32 random bytes in
 * base64url without padding. A salted fast digest, not a slow password hash (PBKDF2, bcrypt), is
 * enough here because the bridge makes the tokens: 256 random bits cannot be guessed from a leaked
 * digest, and a slow hash would cost milliseconds of CPU on every request. The salt makes equal
 * tokens give unequal digests and precomputed tables useless. Tokens are compared through their
 * digests with {@link MessageDigest#isEqual}, whose time does not depend on where they differ.
 *
 * <p>In the credentials file a credential is one line: {@code <id> <devices>
 * sha256:<salt>:<digest>} (salt and digest in base64url), where {@code devices} is one deviceId, a
 * fleet given as a prefix and {@code *} ({@code station-*}), or {@code *} alone for every device.
 */
public final class DeviceCredential {

  /** Hash scheme of the stored digest, the first field of the file's third column. */
  static final String SCHEME = "sha256";

  static final Pattern ID = Pattern.compile("[0-9a-f]{16}");

  /** The devices a credential may name: a deviceId, or a deviceId prefix followed by {@code *}. */
  static final Pattern DEVICES =
      Pattern.compile("(?:[A-Za-z0-9._~:-]{1,128}|[A-Za-z0-9._~:-]{0,127}\\*)");

  private static final SecureRandom RANDOM = new SecureRandom();
  private static final Base64.Encoder B64 = Base64.getUrlEncoder().withoutPadding();
  private static final Base64.Decoder B64_DECODER = Base64.getUrlDecoder();
  private static final int SALT_BYTES = 16;
  private static final int SECRET_BYTES = 32;

  private final String id;
  private final String devices;
  private final byte[] salt;
  private final byte[] digest;

  private DeviceCredential(String id, String devices, byte[] salt, byte[] digest) {
    this.id = id;
    this.devices = devices;
    this.salt = salt;
    this.digest = digest;
  }

  /** A new credential and its token; the token is given once and then only its digest is kept. */
  public record Issued(DeviceCredential credential, String token) {
    @Override
    public String toString() {
      return "Issued[credential=" + credential + ", token=[hidden]]";
    }
  }

  /**
   * Issues a new random token for {@code devices} (a deviceId, {@code prefix*} or {@code *}).
   *
   * @throws IllegalArgumentException when {@code devices} is neither
   */
  public static Issued issue(String devices) {
    requireDevices(devices);
    byte[] idBytes = new byte[8];
    byte[] secret = new byte[SECRET_BYTES];
    byte[] salt = new byte[SALT_BYTES];
    RANDOM.nextBytes(idBytes);
    RANDOM.nextBytes(secret);
    RANDOM.nextBytes(salt);
    String id = HexFormat.of().formatHex(idBytes);
    String token = id + "." + B64.encodeToString(secret);
    return new Issued(new DeviceCredential(id, devices, salt, digest(salt, token)), token);
  }

  /**
   * Reads one line of the credentials file ({@code <id> <devices> sha256:<salt>:<digest>}).
   *
   * @throws IllegalArgumentException naming what is wrong (never echoing the digest)
   */
  public static DeviceCredential parse(String line) {
    String[] fields = line.trim().split("\\s+");
    if (fields.length != 3) {
      throw new IllegalArgumentException(
          "expected 3 fields, <id> <devices> sha256:<salt>:<digest>, found " + fields.length);
    }
    if (!ID.matcher(fields[0]).matches()) {
      throw new IllegalArgumentException("the id must be 16 lowercase hex digits");
    }
    requireDevices(fields[1]);
    String[] hash = fields[2].split(":", -1);
    if (hash.length != 3 || !hash[0].equals(SCHEME)) {
      throw new IllegalArgumentException("the hash must be " + SCHEME + ":<salt>:<digest>");
    }
    byte[] salt;
    byte[] digest;
    try {
      salt = B64_DECODER.decode(hash[1]);
      digest = B64_DECODER.decode(hash[2]);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("salt and digest must be base64url");
    }
    if (salt.length < SALT_BYTES || digest.length != 32) {
      throw new IllegalArgumentException(
          "the salt must have at least " + SALT_BYTES + " bytes and the digest 32");
    }
    return new DeviceCredential(fields[0], fields[1], salt, digest);
  }

  private static void requireDevices(String devices) {
    if (!isDevices(devices)) {
      throw new IllegalArgumentException(
          "devices must be a deviceId (" + Identifier.RULE + "), a prefix followed by *, or *");
    }
  }

  /** The credential's id, the part of its token before the dot. */
  public String id() {
    return id;
  }

  /** The devices it may send for, as written in the file. */
  public String devices() {
    return devices;
  }

  /** Whether the token's digest equals the stored one, compared in constant time. */
  boolean matches(String token) {
    return MessageDigest.isEqual(digest(salt, token), digest);
  }

  /** Whether a request for {@code deviceId} is within this credential's devices. */
  boolean covers(String deviceId) {
    return covers(devices, deviceId);
  }

  /**
   * Whether {@code deviceId} is within {@code devices} (a deviceId, {@code prefix*} or {@code *}):
   * the one rule for every kind of credential, the credentials file's and a JWT's.
   */
  static boolean covers(String devices, String deviceId) {
    return devices.endsWith("*")
        ? deviceId.startsWith(devices.substring(0, devices.length() - 1))
        : devices.equals(deviceId);
  }

  /**
   * Whether {@code devices} is a deviceId, a deviceId prefix followed by {@code *}, or {@code *}.
   */
  static boolean isDevices(String devices) {
    return devices != null && DEVICES.matcher(devices).matches();
  }

  /** The credential's line for the credentials file. */
  public String line() {
    return id
        + " "
        + devices
        + " "
        + SCHEME
        + ":"
        + B64.encodeToString(salt)
        + ":"
        + B64.encodeToString(digest);
  }

  /** SHA-256 of the salt followed by the token's UTF-8 bytes. */
  static byte[] digest(byte[] salt, String token) {
    byte[] text = token.getBytes(StandardCharsets.UTF_8);
    byte[] input = Arrays.copyOf(salt, salt.length + text.length);
    System.arraycopy(text, 0, input, salt.length, text.length);
    return Sha256.digest(input);
  }

  @Override
  public String toString() {
    return "DeviceCredential[id=" + id + ", devices=" + devices + "]";
  }
}
