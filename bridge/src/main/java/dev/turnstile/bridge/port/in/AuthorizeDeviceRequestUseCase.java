package dev.turnstile.bridge.port.in;

import dev.turnstile.schemas.AuthContext;
import java.time.Duration;
import java.util.List;

/**
 * Use case: decide whether a request to a device route may go ahead, before its body is read. The
 * request must carry a bearer token (RFC 6750) whose credential covers the deviceId in its path,
 * when authentication is on, and then fit that device's rate limit.
 *
 * <p>A client address that failed authentication too often is turned away first, before its
 * credentials are checked at all (a JWT's signature costs real CPU). Authentication comes before
 * the device's rate limit, so a request that is refused for its token takes nothing from it. Never
 * blocks; safe to call from an event loop and from many threads.
 */
@FunctionalInterface
public interface AuthorizeDeviceRequestUseCase {

  /**
   * @param deviceId the deviceId in the request's path, not {@code null}
   * @param authorization every {@code Authorization} header value of the request, as received (an
   *     empty list when there is none); more than one is refused as {@link Refusal#MALFORMED}
   * @param clientAddress the client's IP address, for the limit of failed authentications; {@code
   *     null} when not known (no limit applies)
   */
  Decision authorize(String deviceId, List<String> authorization, String clientAddress);

  /** What became of the request. */
  sealed interface Decision permits Allowed, Refused, RateLimited, Throttled {}

  /**
   * Authenticated (or authentication is off) and within the device's rate limit.
   *
   * @param sender who the credentials say sent the request, to record on what it writes; {@code
   *     null} when authentication is off
   */
  record Allowed(AuthContext sender) implements Decision {
    /** Allowed with authentication off: no sender known. */
    public Allowed() {
      this(null);
    }
  }

  /**
   * Refused for its credentials.
   *
   * @param detail safe to send back and to log: it never holds the token
   */
  record Refused(Refusal refusal, String detail) implements Decision {}

  /**
   * The device sends faster than its rate limit.
   *
   * @param retryAfter until the device's bucket holds a request again; positive
   */
  record RateLimited(Duration retryAfter) implements Decision {}

  /**
   * The client's address failed authentication too often; its credentials were not looked at.
   *
   * @param retryAfter until the address may try again; positive
   */
  record Throttled(Duration retryAfter) implements Decision {}

  /** Why a request is refused, in the terms of RFC 6750 §3 that the HTTP adapter answers with. */
  enum Refusal {
    /** No {@code Authorization} header, or one with another scheme than {@code Bearer}: 401. */
    MISSING,
    /** More than one {@code Authorization} header, or a bearer token of the wrong syntax: 401. */
    MALFORMED,
    /** A well-formed bearer token that is no credential's: 401, {@code invalid_token}. */
    INVALID,
    /** A valid token whose credential does not cover the device in the path: 403. */
    FORBIDDEN
  }
}
