package dev.turnstile.bridge.application.auth;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.jwk.JWK;
import com.nimbusds.jose.jwk.source.JWKSource;
import com.nimbusds.jose.proc.BadJOSEException;
import com.nimbusds.jose.proc.BadJWSException;
import com.nimbusds.jose.proc.JWSVerificationKeySelector;
import com.nimbusds.jose.proc.SecurityContext;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.proc.BadJWTException;
import com.nimbusds.jwt.proc.DefaultJWTClaimsVerifier;
import com.nimbusds.jwt.proc.DefaultJWTProcessor;
import dev.turnstile.bridge.application.auth.Authentication.Authenticated;
import dev.turnstile.bridge.application.auth.Authentication.Refused;
import dev.turnstile.bridge.port.in.AuthorizeDeviceRequestUseCase.Refusal;
import dev.turnstile.schemas.AuthContext;
import java.text.ParseException;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Device JWTs (RFC 7519) from an identity provider, checked with Nimbus JOSE+JWT: a JWS in compact
 * form (RFC 7515 §7.1) signed with one of the {@link JsonWebKeys} by an accepted algorithm, of type
 * {@code JWT}, {@code at+jwt} (RFC 9068), either with the {@code application/} prefix, or none,
 * whose {@code iss} is the issuer, whose {@code aud} holds the audience, which has an {@code exp}
 * not past and an {@code nbf}, if any, not ahead (both give or take the clock skew), and whose
 * devices claim covers the path's deviceId by {@link DeviceCredential#covers(String, String) the
 * credentials file's rule}.
 *
 * <p>A token that fails any of these is refused {@link Refusal#INVALID} (401) with a reason that
 * never holds the token; a valid one that does not cover the device is {@link Refusal#FORBIDDEN}
 * (403). Never blocks: the keys are read as last fetched. Thread-safe.
 */
public final class JwtDeviceTokens implements AutoCloseable {

  private static final int MAX_DETAIL = 200;

  /** What Nimbus says when no candidate key of the set verifies the signature. */
  static final String INVALID_SIGNATURE = "Signed JWT rejected: Invalid signature";

  /** {@code typ} values accepted, with RFC 7515 §4.1.9's {@code application/} prefix dropped. */
  private static final Set<String> TYPES = Set.of("jwt", "at+jwt");

  private static final String MEDIA_TYPE_PREFIX = "application/";

  private final DefaultJWTProcessor<SecurityContext> processor = new DefaultJWTProcessor<>();
  private final String devicesClaim;
  private final JsonWebKeys keys;

  /**
   * @param keys the identity provider's keys
   * @param issuer the {@code iss} required, exactly
   * @param audience a value the {@code aud} must hold
   * @param devicesClaim the claim naming the devices a token covers
   * @param algorithms JWS algorithm names accepted (asymmetric only: the caller checks)
   * @param clockSkew allowed on {@code exp} and {@code nbf}, in whole seconds
   */
  public JwtDeviceTokens(
      JsonWebKeys keys,
      String issuer,
      String audience,
      String devicesClaim,
      List<String> algorithms,
      Duration clockSkew) {
    this.keys = Objects.requireNonNull(keys, "keys");
    this.devicesClaim = Objects.requireNonNull(devicesClaim, "devicesClaim");
    JWKSource<SecurityContext> source =
        (selector, context) -> {
          List<JWK> found = selector.select(keys.current());
          if (found.isEmpty()) {
            keys.refetchSoon(); // perhaps rotated: the identity provider may have a new key
          }
          return found;
        };
    Set<JWSAlgorithm> accepted =
        algorithms.stream().map(JWSAlgorithm::parse).collect(Collectors.toUnmodifiableSet());
    processor.setJWSKeySelector(new JWSVerificationKeySelector<>(accepted, source));
    processor.setJWSTypeVerifier(JwtDeviceTokens::verifyType);
    DefaultJWTClaimsVerifier<SecurityContext> claims =
        new DefaultJWTClaimsVerifier<>(
            Objects.requireNonNull(audience, "audience"),
            new JWTClaimsSet.Builder().issuer(Objects.requireNonNull(issuer, "issuer")).build(),
            Set.of("exp"));
    claims.setMaxClockSkew((int) clockSkew.toSeconds());
    processor.setJWTClaimsSetVerifier(claims);
  }

  /**
   * Whether {@code token} has the shape of a JWS in compact form, three parts split by two dots;
   * the bridge's own device tokens have one.
   */
  public static boolean isJwt(String token) {
    // On every request: two indexOf calls, no stream.
    int second = token.indexOf('.', token.indexOf('.') + 1);
    return second > 0 && token.indexOf('.', second + 1) < 0;
  }

  /** Checks {@code token} (a {@link #isJwt JWT}, as read from its header) for {@code deviceId}. */
  public Authentication authenticate(String deviceId, String token) {
    JWTClaimsSet claims;
    try {
      claims = processor.process(token, null);
    } catch (ParseException e) {
      return invalid("the bearer token is not a JWT (RFC 7519)");
    } catch (BadJWTException e) {
      return invalid("the JWT's claims are refused: " + e.getMessage());
    } catch (BadJWSException e) {
      if (INVALID_SIGNATURE.equals(e.getMessage())) {
        // No key of the set verifies it: the identity provider may have replaced a key under
        // the same kid (some rotate so), which the next scheduled fetch would find only later.
        keys.refetchSoon();
      }
      return invalid("the JWT is refused: " + e.getMessage());
    } catch (BadJOSEException e) {
      return invalid("the JWT is refused: " + e.getMessage());
    } catch (JOSEException | RuntimeException e) {
      return invalid("the JWT could not be verified");
    }
    List<String> devices = devices(claims.getClaim(devicesClaim));
    if (devices.isEmpty()) {
      return new Refused(
          Refusal.FORBIDDEN,
          "the JWT's " + devicesClaim + " claim names no device (a deviceId, prefix* or *)");
    }
    for (String covered : devices) {
      if (DeviceCredential.covers(covered, deviceId)) {
        return new Authenticated(AuthContext.deviceJwt(claims.getClaims()));
      }
    }
    return new Refused(Refusal.FORBIDDEN, "the JWT is not valid for device " + deviceId);
  }

  /**
   * The JWS header's {@code typ}: none, {@code JWT} or {@code at+jwt} (RFC 9068 §2.1), in any case,
   * with or without the {@code application/} prefix, which RFC 7515 §4.1.9 says is implied (so
   * {@code application/at+jwt} is {@code at+jwt}); media types compare case-insensitively (RFC 9110
   * §8.3.1).
   */
  static void verifyType(JOSEObjectType type, SecurityContext context) throws BadJOSEException {
    if (type == null) {
      return;
    }
    String value = type.getType().trim().toLowerCase(Locale.ROOT);
    if (value.startsWith(MEDIA_TYPE_PREFIX)) {
      value = value.substring(MEDIA_TYPE_PREFIX.length());
    }
    if (!TYPES.contains(value)) {
      throw new BadJOSEException(
          "JOSE header typ (type) " + type + " not allowed: JWT or at+jwt (RFC 9068)");
    }
  }

  /** The claim's device patterns: a string, or the strings of an array; invalid ones dropped. */
  private static List<String> devices(Object claim) {
    List<?> values =
        claim instanceof List<?> list ? list : claim == null ? List.of() : List.of(claim);
    return values.stream()
        .filter(String.class::isInstance)
        .map(String.class::cast)
        .filter(DeviceCredential::isDevices)
        .toList();
  }

  private static Refused invalid(String detail) {
    return new Refused(
        Refusal.INVALID,
        detail.length() > MAX_DETAIL ? detail.substring(0, MAX_DETAIL) + "..." : detail);
  }

  /** Stops fetching the keys. */
  @Override
  public void close() {
    keys.close();
  }
}
