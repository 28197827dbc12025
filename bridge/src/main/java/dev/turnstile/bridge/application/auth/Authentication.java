package dev.turnstile.bridge.application.auth;

/** What {@link DeviceCredentials#authenticate} made of a request's credentials. */
public sealed interface Authentication {

  /** The token is valid and covers the request's device. */
  record Authenticated(String credentialId) implements Authentication {}

  /**
   * The request is refused; {@code detail} is safe to send back and to log (it never holds the
   * token).
   */
  record Refused(Refusal refusal, String detail) implements Authentication {}

  /** Why a request is refused; the HTTP adapter maps each to a status (RFC 6750 §3). */
  enum Refusal {
    /** No {@code Authorization} header, or one with another scheme than {@code Bearer}: 401. */
    MISSING,
    /** More than one {@code Authorization} header, or a bearer token of the wrong syntax: 401. */
    MALFORMED,
    /** A well-formed bearer token that is no credential's: 401. */
    INVALID,
    /** A valid token whose credential does not cover the device in the path: 403. */
    FORBIDDEN
  }
}
