package dev.turnstile.bridge.application.auth;

import dev.turnstile.bridge.application.auth.Authentication.Refused;
import dev.turnstile.bridge.port.in.AuthorizeDeviceRequestUseCase.Refusal;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The bearer token of a request's {@code Authorization} headers (RFC 6750 §2.1), or why it has
 * none: read once here for every kind of token the bridge accepts (its own device tokens and JWTs).
 */
final class BearerToken {

  /** RFC 6750 §2.1: {@code Bearer} (any case), spaces, then a b64token. */
  private static final Pattern BEARER =
      Pattern.compile("([A-Za-z]+) +([A-Za-z0-9._~+/-]+=*) *|([A-Za-z]+)( .*)?");

  /** Either a token or the refusal; exactly one is not {@code null}. */
  record Parsed(String token, Refused refused) {}

  private BearerToken() {}

  /**
   * @param authorization every {@code Authorization} header value, as received
   */
  static Parsed parse(List<String> authorization) {
    if (authorization.isEmpty()) {
      return refused(Refusal.MISSING, "send Authorization: Bearer <device token>");
    }
    if (authorization.size() > 1) {
      return refused(
          Refusal.MALFORMED, "send one Authorization header, not " + authorization.size());
    }
    Matcher matcher = BEARER.matcher(authorization.get(0).strip());
    if (!matcher.matches()) {
      return refused(Refusal.MALFORMED, "the Authorization header is not <scheme> <token>");
    }
    String scheme = matcher.group(1) != null ? matcher.group(1) : matcher.group(3);
    if (!scheme.toLowerCase(Locale.ROOT).equals("bearer")) {
      // RFC 6750 §3.1: an unsupported scheme is answered like a missing header.
      return refused(
          Refusal.MISSING, "the Authorization scheme must be Bearer, not " + printable(scheme));
    }
    if (matcher.group(2) == null) {
      return refused(Refusal.MALFORMED, "the bearer token is not a b64token (RFC 6750 §2.1)");
    }
    return new Parsed(matcher.group(2), null);
  }

  private static Parsed refused(Refusal refusal, String detail) {
    return new Parsed(null, new Refused(refusal, detail));
  }

  /** A scheme to echo: letters only by the pattern, but bounded in length. */
  private static String printable(String scheme) {
    return scheme.length() > 20 ? scheme.substring(0, 20) + "..." : scheme;
  }
}
