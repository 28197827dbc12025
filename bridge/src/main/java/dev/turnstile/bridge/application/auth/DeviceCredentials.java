package dev.turnstile.bridge.application.auth;

import dev.turnstile.bridge.application.auth.Authentication.Authenticated;
import dev.turnstile.bridge.application.auth.Authentication.Refusal;
import dev.turnstile.bridge.application.auth.Authentication.Refused;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The device credentials the bridge accepts, as read from the credentials file: checks a request's
 * {@code Authorization} header against the deviceId in its path. Immutable and thread-safe.
 *
 * <p>File format: one {@link DeviceCredential#line() credential per line}; blank lines and lines
 * starting with {@code #} are ignored. Several credentials may cover one device (rotation: add the
 * new one, move the device over, remove the old line).
 */
public final class DeviceCredentials {

  /** RFC 6750 §2.1: {@code Bearer} (any case), spaces, then a b64token. */
  private static final Pattern BEARER =
      Pattern.compile("([A-Za-z]+) +([A-Za-z0-9._~+/-]+=*) *|([A-Za-z]+)( .*)?");

  /**
   * Digest compared when a token names no known credential, so that an unknown id costs the same
   * time as a wrong secret.
   */
  private static final DeviceCredential DECOY = DeviceCredential.issue("*").credential();

  private final Map<String, DeviceCredential> byId;

  private DeviceCredentials(Map<String, DeviceCredential> byId) {
    this.byId = Map.copyOf(byId);
  }

  /**
   * Reads the file's lines.
   *
   * @throws IllegalArgumentException naming the first bad line (its number, never its content)
   */
  public static DeviceCredentials parse(List<String> lines) {
    Map<String, DeviceCredential> byId = new HashMap<>();
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i).strip();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      DeviceCredential credential;
      try {
        credential = DeviceCredential.parse(line);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("line " + (i + 1) + ": " + e.getMessage());
      }
      if (byId.putIfAbsent(credential.id(), credential) != null) {
        throw new IllegalArgumentException(
            "line " + (i + 1) + ": credential id " + credential.id() + " appears twice");
      }
    }
    return new DeviceCredentials(byId);
  }

  /** How many credentials there are. */
  public int size() {
    return byId.size();
  }

  /**
   * Checks the request's {@code Authorization} headers (all of them, as received) for a request
   * about {@code deviceId}.
   */
  public Authentication authenticate(String deviceId, List<String> authorization) {
    if (authorization.isEmpty()) {
      return new Refused(Refusal.MISSING, "send Authorization: Bearer <device token>");
    }
    if (authorization.size() > 1) {
      return new Refused(
          Refusal.MALFORMED, "send one Authorization header, not " + authorization.size());
    }
    Matcher matcher = BEARER.matcher(authorization.get(0).strip());
    if (!matcher.matches()) {
      return new Refused(Refusal.MALFORMED, "the Authorization header is not <scheme> <token>");
    }
    String scheme = matcher.group(1) != null ? matcher.group(1) : matcher.group(3);
    if (!scheme.toLowerCase(Locale.ROOT).equals("bearer")) {
      // RFC 6750 §3.1: an unsupported scheme is answered like a missing header.
      return new Refused(
          Refusal.MISSING, "the Authorization scheme must be Bearer, not " + printable(scheme));
    }
    if (matcher.group(2) == null) {
      return new Refused(Refusal.MALFORMED, "the bearer token is not a b64token (RFC 6750 §2.1)");
    }
    String token = matcher.group(2);
    int dot = token.indexOf('.');
    DeviceCredential credential = dot < 0 ? null : byId.get(token.substring(0, dot));
    boolean matches = (credential == null ? DECOY : credential).matches(token);
    if (credential == null || !matches) {
      return new Refused(Refusal.INVALID, "the bearer token is not valid");
    }
    if (!credential.covers(deviceId)) {
      return new Refused(Refusal.FORBIDDEN, "the bearer token is not valid for device " + deviceId);
    }
    return new Authenticated(credential.id());
  }

  /** A scheme to echo: letters only by the pattern, but bounded in length. */
  private static String printable(String scheme) {
    return scheme.length() > 20 ? scheme.substring(0, 20) + "..." : scheme;
  }

  @Override
  public String toString() {
    return "DeviceCredentials[" + byId.size() + " credentials]";
  }
}
