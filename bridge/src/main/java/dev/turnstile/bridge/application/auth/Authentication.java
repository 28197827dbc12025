package dev.turnstile.bridge.application.auth;

import dev.turnstile.bridge.port.in.AuthorizeDeviceRequestUseCase.Refusal;
import dev.turnstile.schemas.AuthContext;

/** What {@link DeviceCredentials#authenticate} made of a request's credentials. */
public sealed interface Authentication {

  /**
   * The token is valid and covers the request's device.
   *
   * @param sender who the token says sent the request, as recorded on what it writes
   */
  record Authenticated(AuthContext sender) implements Authentication {}

  /**
   * The request is refused; {@code detail} is safe to send back and to log (it never holds the
   * token).
   */
  record Refused(Refusal refusal, String detail) implements Authentication {}
}
