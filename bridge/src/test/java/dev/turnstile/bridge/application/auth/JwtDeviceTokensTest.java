package dev.turnstile.bridge.application.auth;

import static dev.turnstile.bridge.application.auth.DeviceJwts.AUDIENCE;
import static dev.turnstile.bridge.application.auth.DeviceJwts.ISSUER;
import static dev.turnstile.bridge.application.auth.DeviceJwts.claims;
import static dev.turnstile.bridge.application.auth.DeviceJwts.sign;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jose.jwk.ECKey;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.util.Base64URL;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.PlainJWT;
import com.nimbusds.jwt.SignedJWT;
import dev.turnstile.bridge.application.auth.Authentication.Authenticated;
import dev.turnstile.bridge.application.auth.Authentication.Refused;
import dev.turnstile.bridge.port.in.AuthorizeDeviceRequestUseCase.Refusal;
import dev.turnstile.schemas.AuthContext;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class JwtDeviceTokensTest {

  private static final RSAKey RSA = DeviceJwts.rsa("rsa-1");
  private static final ECKey EC = DeviceJwts.ec("ec-1");
  private static final String NO_DEVICE =
      "the JWT's sub claim names no device (a deviceId, prefix* or *)";

  private final AtomicReference<JWKSet> published =
      new AtomicReference<>(new JWKSet(List.of(RSA, EC)));
  private final AtomicInteger fetches = new AtomicInteger();
  private final JsonWebKeys keys =
      JsonWebKeys.start(
          () -> {
            fetches.incrementAndGet();
            return published.get();
          },
          "test",
          Duration.ofHours(1),
          Duration.ZERO);
  private final JwtDeviceTokens jwts =
      new JwtDeviceTokens(
          keys, ISSUER, AUDIENCE, "sub", List.of("RS256", "ES256"), Duration.ofSeconds(60));

  @AfterEach
  void close() {
    jwts.close();
  }

  @Test
  void aTokenSignedByAPublishedKeyForTheDeviceIsLetIn() {
    assertThat(jwts.authenticate("station-1", sign(RSA, claims("station-1").build())))
        .as("who sent it: the subject and issuer, never the token")
        .isEqualTo(
            new Authenticated(
                new AuthContext(
                    "service_account", "station-1", Map.of("iss", ISSUER, "sub", "station-1"))));
    assertThat(jwts.authenticate("station-1", sign(EC, claims("station-1").build())))
        .isInstanceOf(Authenticated.class);
  }

  @Test
  void theDevicesClaimFollowsTheCredentialsFileRule() {
    assertThat(jwts.authenticate("fleet-7", sign(RSA, claims("fleet-*").build())))
        .isInstanceOf(Authenticated.class);
    assertThat(jwts.authenticate("anything", sign(RSA, claims("*").build())))
        .isInstanceOf(Authenticated.class);
    assertThat(jwts.authenticate("station-10", sign(RSA, claims("station-1").build())))
        .isEqualTo(forbidden("station-10"));
    for (JWTClaimsSet noDevice : List.of(claims(null).build(), claims("not a device!").build())) {
      assertThat(jwts.authenticate("station-1", sign(RSA, noDevice)))
          .isEqualTo(new Refused(Refusal.FORBIDDEN, NO_DEVICE));
    }
  }

  /** RFC 7519 makes {@code sub} a string: an array of devices needs a claim of its own. */
  @Test
  void aDevicesClaimOfItsOwnMayHoldAnArray() {
    try (JwtDeviceTokens byDevices =
        new JwtDeviceTokens(
            keys, ISSUER, AUDIENCE, "devices", List.of("RS256"), Duration.ofSeconds(60))) {
      JWTClaimsSet both =
          claims("user-1").claim("devices", List.of("station-1", "station-2")).build();
      assertThat(byDevices.authenticate("station-2", sign(RSA, both)))
          .isEqualTo(
              new Authenticated(
                  new AuthContext(
                      "service_account", "user-1", Map.of("iss", ISSUER, "sub", "user-1"))));
      assertThat(byDevices.authenticate("station-3", sign(RSA, both)))
          .isEqualTo(forbidden("station-3"));
      assertThat(
              byDevices.authenticate(
                  "fleet-1", sign(RSA, claims("user-1").claim("devices", "fleet-*").build())))
          .isInstanceOf(Authenticated.class);
      for (Object noDevice : List.of(List.of(7, "bad id!"), List.of(), 42)) {
        assertThat(
                byDevices.authenticate(
                    "station-1", sign(RSA, claims("user-1").claim("devices", noDevice).build())))
            .as("devices %s", noDevice)
            .isEqualTo(
                new Refused(
                    Refusal.FORBIDDEN,
                    "the JWT's devices claim names no device (a deviceId, prefix* or *)"));
      }
    }
  }

  @Test
  void expiryIssuerAudienceAndNotBeforeAreChecked() {
    Instant now = Instant.now();
    assertThat(
            jwts.authenticate(
                "station-1", sign(RSA, claims("station-1").expirationTime(ago(now, 30)).build())))
        .as("expired 30 s ago, within the 60 s clock skew")
        .isInstanceOf(Authenticated.class);

    assertInvalid(claims("station-1").expirationTime(ago(now, 120)).build(), "Expired JWT");
    assertInvalid(claims("station-1").expirationTime(null).build(), "exp");
    assertInvalid(claims("station-1").issuer("https://other.example/").build(), "iss");
    assertInvalid(claims("station-1").issuer(null).build(), "iss");
    assertInvalid(claims("station-1").audience("someone-else").build(), "aud");
    assertInvalid(claims("station-1").audience((String) null).build(), "aud");
    assertInvalid(
        claims("station-1").notBeforeTime(Date.from(now.plusSeconds(600))).build(), "before");
    assertThat(
            jwts.authenticate(
                "station-1",
                sign(RSA, claims("station-1").audience(List.of("x", AUDIENCE)).build())))
        .as("an aud array holding the audience")
        .isInstanceOf(Authenticated.class);
  }

  @Test
  void unsignedSymmetricAndForeignTokensAreRefused() throws Exception {
    JWTClaimsSet valid = claims("station-1").build();
    String unsigned = new PlainJWT(valid).serialize();
    // Algorithm confusion: an HS256 MAC keyed with the RSA public key's bytes.
    SignedJWT confused =
        new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.HS256).keyID("rsa-1").build(), valid);
    confused.sign(new MACSigner(Arrays.copyOf(RSA.toPublicKey().getEncoded(), 256)));
    String foreign = sign(DeviceJwts.rsa("rsa-1"), valid); // same kid, another key

    for (String token :
        List.of(unsigned, confused.serialize(), foreign, "a.b.c", "..", "e30.e30.")) {
      assertThat(jwts.authenticate("station-1", token))
          .as(token)
          .isInstanceOfSatisfying(
              Refused.class, r -> assertThat(r.refusal()).isEqualTo(Refusal.INVALID));
    }
  }

  /**
   * A property over the whole kind of tampered tokens: changing any one character of a valid token
   * (header, claims or signature) never lets it in and never throws.
   */
  @Test
  void noOneCharacterChangeOfAValidTokenIsLetIn() {
    String token = sign(EC, claims("station-1").build());
    String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.=+/ ";
    Random random = new Random(20261202);
    int tried = 0;
    for (int i = 0; i < 600; i++) {
      int at = random.nextInt(token.length());
      char replacement = alphabet.charAt(random.nextInt(alphabet.length()));
      String changed = token.substring(0, at) + replacement + token.substring(at + 1);
      if (sameBytes(changed, token)) {
        continue; // the unused low bits of a segment's last character: the same token
      }
      tried++;
      assertThat(jwts.authenticate("station-1", changed))
          .as("%s changed at %d", token, at)
          .isInstanceOf(Refused.class);
    }
    assertThat(tried).isGreaterThan(500);
  }

  @Test
  void aTokenOfAKeyNotYetFetchedIsLetInOnceTheRotatedSetIsFetched() {
    RSAKey rotated = DeviceJwts.rsa("rsa-2");
    String token = sign(rotated, claims("station-1").build());
    int before = fetches.get();

    assertThat(jwts.authenticate("station-1", token)).isInstanceOf(Refused.class);
    published.set(new JWKSet(List.of(RSA, rotated)));

    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () ->
                assertThat(jwts.authenticate("station-1", token))
                    .isInstanceOf(Authenticated.class));
    assertThat(fetches.get()).as("the unknown key asked for a fetch").isGreaterThan(before);
  }

  /**
   * Issue 25, item 5: a key replaced under the same {@code kid} (as some identity providers rotate)
   * was noticed only at the next scheduled fetch (here an hour away): every token of the new key
   * got 401 "Invalid signature" meanwhile. A signature no key verifies now asks for the same
   * rate-limited fetch as an unknown {@code kid}.
   */
  @Test
  void aKeyReplacedUnderTheSameKidIsTakenOnceASignatureFailsAgainstTheOldOne() {
    RSAKey replaced = DeviceJwts.rsa(RSA.getKeyID());
    String token = sign(replaced, claims("station-1").build());
    published.set(new JWKSet(List.of(replaced, EC)));
    int before = fetches.get();

    assertThat(jwts.authenticate("station-1", token))
        .as("the set in force still holds the old key under that kid")
        .isInstanceOfSatisfying(
            Refused.class, r -> assertThat(r.detail()).contains("Invalid signature"));

    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () ->
                assertThat(jwts.authenticate("station-1", token))
                    .isInstanceOf(Authenticated.class));
    assertThat(fetches.get()).as("the failed signature asked for a fetch").isGreaterThan(before);
  }

  /**
   * RFC 9068 §4 and RFC 7515 §4.1.9: {@code application/} is implied in {@code typ}, and media
   * types compare case-insensitively; nothing but JWT and at+jwt is let in.
   */
  @Test
  void theTypMayCarryTheApplicationPrefixInAnyCase() {
    for (String typ :
        List.of(
            "JWT",
            "jwt",
            "at+jwt",
            "AT+JWT",
            "application/jwt",
            "application/at+jwt",
            "Application/At+JWT")) {
      assertThat(
              jwts.authenticate(
                  "station-1", sign(RSA, claims("station-1").build(), new JOSEObjectType(typ))))
          .as(typ)
          .isInstanceOf(Authenticated.class);
    }
    assertThat(jwts.authenticate("station-1", sign(RSA, claims("station-1").build(), null)))
        .as("no typ")
        .isInstanceOf(Authenticated.class);
    for (String typ : List.of("JOSE", "application/jose", "application/json", "at+jwt+x")) {
      assertThat(
              jwts.authenticate(
                  "station-1", sign(RSA, claims("station-1").build(), new JOSEObjectType(typ))))
          .as(typ)
          .isInstanceOfSatisfying(Refused.class, r -> assertThat(r.detail()).contains("typ"));
    }
  }

  @Test
  void aFailedFetchKeepsTheKeysInForce() {
    published.set(null); // the source now throws on fetch (NullPointerException)
    assertThat(keys.refresh()).isFalse();
    assertThat(jwts.authenticate("station-1", sign(RSA, claims("station-1").build())))
        .isInstanceOf(Authenticated.class);
  }

  @Test
  void privateAndSymmetricKeysOfTheSetAreNotKept() {
    assertThat(keys.current().getKeys()).allMatch(k -> !k.isPrivate());
  }

  @Test
  void onlyThreePartTokensAreJwts() {
    assertThat(JwtDeviceTokens.isJwt("a.b.c")).isTrue();
    assertThat(JwtDeviceTokens.isJwt("0123456789abcdef.secret")).isFalse();
    assertThat(JwtDeviceTokens.isJwt("a.b.c.d.e")).isFalse();
    assertThat(JwtDeviceTokens.isJwt("..")).isTrue();
    assertThat(JwtDeviceTokens.isJwt("a.b.c.")).isFalse();
    assertThat(JwtDeviceTokens.isJwt("nodot")).isFalse();
    assertThat(JwtDeviceTokens.isJwt(".a")).isFalse();
  }

  private void assertInvalid(JWTClaimsSet claims, String detail) {
    assertThat(jwts.authenticate("station-1", sign(RSA, claims)))
        .isInstanceOfSatisfying(
            Refused.class,
            r -> {
              assertThat(r.refusal()).isEqualTo(Refusal.INVALID);
              assertThat(r.detail()).contains(detail);
            });
  }

  private static Refused forbidden(String deviceId) {
    return new Refused(Refusal.FORBIDDEN, "the JWT is not valid for device " + deviceId);
  }

  private static Date ago(Instant now, long seconds) {
    return Date.from(now.minusSeconds(seconds));
  }

  /**
   * Whether the verifier sees the same token: the signing input (header and claims as sent) equal
   * and the signature the same bytes (its decoder skips the unused low bits of a last character and
   * reads {@code +} and {@code /} as {@code -} and {@code _}).
   */
  private static boolean sameBytes(String a, String b) {
    int dot = a.lastIndexOf('.');
    return dot == b.lastIndexOf('.')
        && a.substring(0, dot).equals(b.substring(0, dot))
        && Arrays.equals(
            new Base64URL(a.substring(dot + 1)).decode(),
            new Base64URL(b.substring(dot + 1)).decode());
  }
}
