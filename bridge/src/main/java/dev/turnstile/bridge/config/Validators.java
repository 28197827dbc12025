package dev.turnstile.bridge.config;

import java.net.URI;
import java.net.URISyntaxException;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;

/**
 * The bridge's own kinds of valid value: each throws for an invalid one, its message the reason.
 */
final class Validators {

  private Validators() {}

  static void rfc3339(String text) {
    try {
      OffsetDateTime.parse(text);
    } catch (DateTimeParseException e) {
      throw new IllegalArgumentException("must be an RFC 3339 date-time with an offset");
    }
  }

  /** A comma-separated list ({@code "TLSv1.2, TLSv1.3"}) as its names; blanks dropped. */
  static List<String> names(String commaSeparated) {
    return java.util.Arrays.stream(commaSeparated.split(","))
        .map(String::strip)
        .filter(p -> !p.isEmpty())
        .toList();
  }

  static final List<String> TLS_VERSIONS = List.of("TLSv1.2", "TLSv1.3");

  static final Consumer<String> TLS_PROTOCOLS =
      namesAmong(TLS_VERSIONS, "TLS version", "is not offered", "RFC 8996 deprecates older");

  /** JWS algorithms a device JWT may be signed with: asymmetric only (RFC 7518 §3.1). */
  static final List<String> ASYMMETRIC_JWS =
      List.of("RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512");

  static final Consumer<String> JWT_ALGORITHMS =
      namesAmong(
          ASYMMETRIC_JWS,
          "JWS algorithm",
          "is not accepted",
          "a JWK set holds public keys; none and HS* would let anyone sign");

  /** The documented valid values of a list of {@code allowed} names. */
  static String among(List<String> allowed) {
    return "`" + String.join("`, `", allowed) + "`";
  }

  /**
   * A comma-separated list ({@link #names}) of at least one name, each of {@code allowed}; a name
   * that is not is refused as "{@code <name> <refusal>: only <allowed> (<why>)}".
   */
  private static Consumer<String> namesAmong(
      List<String> allowed, String what, String refusal, String why) {
    return list -> {
      List<String> names = names(list);
      if (names.isEmpty()) {
        throw new IllegalArgumentException("name at least one " + what);
      }
      for (String given : names) {
        if (!allowed.contains(given)) {
          throw new IllegalArgumentException(
              given + " " + refusal + ": only " + String.join(", ", allowed) + " (" + why + ")");
        }
      }
    };
  }

  /**
   * An absolute {@code https://} URL without user info; {@code http://} only to a loopback host,
   * since whoever can change the set in transit can sign for every device.
   */
  static void jwksUri(String text) {
    URI uri;
    try {
      uri = new URI(text);
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException("not a URI: " + e.getReason());
    }
    String scheme = String.valueOf(uri.getScheme()).toLowerCase(Locale.ROOT);
    if (!scheme.equals("https") && !scheme.equals("http") || uri.getHost() == null) {
      throw new IllegalArgumentException("must be an https:// URL");
    }
    if (uri.getRawUserInfo() != null) {
      throw new IllegalArgumentException(
          "must hold no user info: a JWK set is public, and the JDK's HTTP client would not send"
              + " it");
    }
    String host = uri.getHost();
    boolean loopback = host.equals("localhost") || host.startsWith("127.") || host.equals("[::1]");
    if (scheme.equals("http") && !loopback) {
      throw new IllegalArgumentException(
          "must be https:// (http:// only to a loopback host): whoever can change the key set in"
              + " transit can sign tokens for every device");
    }
  }

  static void peekLock(String mode) {
    if (!"peek-lock".equals(mode.toLowerCase(Locale.ROOT))) {
      throw new IllegalArgumentException(
          "must be peek-lock: with receive-and-delete a message is gone from Service Bus before"
              + " Kafka acknowledged it, so a Kafka failure would lose it");
    }
  }
}
