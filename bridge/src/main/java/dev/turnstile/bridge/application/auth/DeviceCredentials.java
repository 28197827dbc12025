package dev.turnstile.bridge.application.auth;

import dev.turnstile.bridge.application.auth.Authentication.Authenticated;
import dev.turnstile.bridge.application.auth.Authentication.Refused;
import dev.turnstile.bridge.port.in.AuthorizeDeviceRequestUseCase.Refusal;
import dev.turnstile.schemas.AuthContext;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The device credentials the bridge accepts, as read from the credentials file: checks a request's
 * {@code Authorization} header against the deviceId in its path. Immutable and thread-safe.
 *
 * <p>File format: one {@link DeviceCredential#line() credential per line}; blank lines and lines
 * starting with {@code #} are ignored. Several credentials may cover one device (rotation: add the
 * new one, move the device over, remove the old line).
 */
public final class DeviceCredentials {

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
    BearerToken.Parsed parsed = BearerToken.parse(authorization);
    return parsed.refused() != null
        ? parsed.refused()
        : authenticateToken(deviceId, parsed.token());
  }

  /**
   * Checks a bearer token, already read from its header, for a request about {@code deviceId}: the
   * credential its id names must exist, its digest match and its devices cover {@code deviceId}.
   */
  Authentication authenticateToken(String deviceId, String token) {
    int dot = token.indexOf('.');
    DeviceCredential credential = dot < 0 ? null : byId.get(token.substring(0, dot));
    boolean matches = (credential == null ? DECOY : credential).matches(token);
    if (credential == null || !matches) {
      return new Refused(Refusal.INVALID, "the bearer token is not valid");
    }
    if (!credential.covers(deviceId)) {
      return new Refused(Refusal.FORBIDDEN, "the bearer token is not valid for device " + deviceId);
    }
    return new Authenticated(AuthContext.deviceToken(credential.id(), credential.devices()));
  }

  @Override
  public String toString() {
    return "DeviceCredentials[" + byId.size() + " credentials]";
  }
}
