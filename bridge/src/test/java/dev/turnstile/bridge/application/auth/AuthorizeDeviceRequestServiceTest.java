package dev.turnstile.bridge.application.auth;

import static org.assertj.core.api.Assertions.assertThat;

import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.RSAKey;
import dev.turnstile.bridge.application.DeviceRateLimits;
import dev.turnstile.bridge.application.auth.DeviceCredential.Issued;
import dev.turnstile.bridge.port.in.AuthorizeDeviceRequestUseCase.Allowed;
import dev.turnstile.bridge.port.in.AuthorizeDeviceRequestUseCase.Decision;
import dev.turnstile.bridge.port.in.AuthorizeDeviceRequestUseCase.RateLimited;
import dev.turnstile.bridge.port.in.AuthorizeDeviceRequestUseCase.Refusal;
import dev.turnstile.bridge.port.in.AuthorizeDeviceRequestUseCase.Refused;
import dev.turnstile.bridge.port.in.AuthorizeDeviceRequestUseCase.Throttled;
import dev.turnstile.schemas.AuthContext;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AuthorizeDeviceRequestServiceTest {

  /** The client address of every request here (a documentation address, RFC 5737). */
  private static final String CLIENT = "192.0.2.1";

  @TempDir Path dir;

  private final Issued station1 = DeviceCredential.issue("station-1");

  @Test
  void aRefusedTokenTakesNothingFromTheDevicesRateLimit() throws IOException {
    AuthorizeDeviceRequestService access =
        new AuthorizeDeviceRequestService(file(station1), new DeviceRateLimits(1, 1));

    Decision missing = access.authorize("station-1", List.of(), CLIENT);
    Decision wrongScheme =
        access.authorize("station-1", List.of("Basic " + station1.token()), CLIENT);

    assertThat(missing).isEqualTo(new Refused(Refusal.MISSING, missingDetail()));
    assertThat(wrongScheme).isInstanceOf(Refused.class);
    assertThat(access.authorize("station-1", bearer(station1), CLIENT))
        .isEqualTo(allowed(station1));
    assertThat(access.authorize("station-1", bearer(station1), CLIENT))
        .isInstanceOfSatisfying(
            RateLimited.class,
            limited ->
                assertThat(limited.retryAfter())
                    .isPositive()
                    .isLessThanOrEqualTo(Duration.ofSeconds(1)));
  }

  @Test
  void aTokenOfAnotherDeviceIsForbidden() throws IOException {
    AuthorizeDeviceRequestService access =
        new AuthorizeDeviceRequestService(file(station1), DeviceRateLimits.NONE);

    assertThat(access.authorize("station-2", bearer(station1), CLIENT))
        .isInstanceOfSatisfying(
            Refused.class, refused -> assertThat(refused.refusal()).isEqualTo(Refusal.FORBIDDEN));
  }

  @Test
  void withoutCredentialsOnlyTheRateLimitApplies() {
    AuthorizeDeviceRequestService access =
        new AuthorizeDeviceRequestService(null, new DeviceRateLimits(1, 1));

    assertThat(access.authenticates()).isFalse();
    assertThat(access.reloadCredentials()).isFalse();
    assertThat(access.authorize("station-1", List.of(), CLIENT))
        .as("nobody authenticated: no sender to record")
        .isEqualTo(new Allowed(null));
    assertThat(access.authorize("station-1", List.of(), CLIENT)).isInstanceOf(RateLimited.class);
  }

  @Test
  void aReloadTakesAChangedFileAndKeepsTheCredentialsWhenTheNewFileIsBad() throws IOException {
    Path path = dir.resolve("credentials");
    Files.writeString(path, station1.credential().line() + "\n");
    AuthorizeDeviceRequestService access =
        new AuthorizeDeviceRequestService(DeviceCredentialsFile.load(path), DeviceRateLimits.NONE);
    Issued rotated = DeviceCredential.issue("station-1");

    Files.writeString(path, rotated.credential().line() + "\n");
    assertThat(access.reloadCredentials()).isTrue();
    assertThat(access.authorize("station-1", bearer(rotated), CLIENT)).isEqualTo(allowed(rotated));
    assertThat(access.authorize("station-1", bearer(station1), CLIENT)).isInstanceOf(Refused.class);

    Files.writeString(path, "not a credential\n");
    assertThat(access.reloadCredentials()).isFalse();
    assertThat(access.authorize("station-1", bearer(rotated), CLIENT)).isEqualTo(allowed(rotated));
  }

  @Test
  void deviceTokensAndJwtsAreAcceptedSideBySide() throws IOException {
    RSAKey key = DeviceJwts.rsa("k1");
    String jwt = DeviceJwts.sign(key, DeviceJwts.claims("station-2").build());
    try (AuthorizeDeviceRequestService both =
            new AuthorizeDeviceRequestService(
                file(station1), jwts(key), DeviceRateLimits.NONE, FailedAuthenticationLimits.NONE);
        AuthorizeDeviceRequestService jwtOnly =
            new AuthorizeDeviceRequestService(
                null, jwts(key), DeviceRateLimits.NONE, FailedAuthenticationLimits.NONE)) {
      assertThat(both.authenticates()).isTrue();
      AuthContext subject =
          new AuthContext(
              AuthContext.SERVICE_ACCOUNT,
              "station-2",
              Map.of("iss", DeviceJwts.ISSUER, "sub", "station-2"));
      assertThat(both.authorize("station-1", bearer(station1), CLIENT))
          .isEqualTo(allowed(station1));
      assertThat(both.authorize("station-2", List.of("Bearer " + jwt), CLIENT))
          .isEqualTo(new Allowed(subject));
      assertThat(both.authorize("station-1", List.of("Bearer " + jwt), CLIENT))
          .isInstanceOfSatisfying(
              Refused.class, r -> assertThat(r.refusal()).isEqualTo(Refusal.FORBIDDEN));

      assertThat(jwtOnly.authenticates()).isTrue();
      assertThat(jwtOnly.readsCredentialsFile()).isFalse();
      assertThat(jwtOnly.authorize("station-2", List.of("Bearer " + jwt), CLIENT))
          .isEqualTo(new Allowed(subject));
      assertThat(jwtOnly.authorize("station-1", bearer(station1), CLIENT))
          .isEqualTo(
              new Refused(
                  Refusal.INVALID,
                  "the bearer token is not a JWT (RFC 7519), the only kind accepted here"));
      assertThat(jwtOnly.authorize("station-2", List.of(), CLIENT))
          .isEqualTo(new Refused(Refusal.MISSING, missingDetail()));
    }
  }

  /**
   * Issue 25, item 5: a client address that failed too often is turned away before its credentials
   * are looked at (a valid token included: no check of any kind is made), with the time until it
   * may try again; other addresses, and the same one later, are unaffected.
   */
  @Test
  void anAddressThatFailedTooOftenIsTurnedAwayBeforeAnyCredentialIsChecked() throws IOException {
    AuthorizeDeviceRequestService access =
        new AuthorizeDeviceRequestService(
            file(station1), null, DeviceRateLimits.NONE, new FailedAuthenticationLimits(1, 3));
    List<String> wrong = List.of("Bearer 0123456789abcdef.not-the-token");
    for (int i = 0; i < 3; i++) {
      assertThat(access.authorize("station-1", wrong, CLIENT)).isInstanceOf(Refused.class);
    }

    assertThat(access.authorize("station-1", bearer(station1), CLIENT))
        .isInstanceOfSatisfying(
            Throttled.class,
            throttled ->
                assertThat(throttled.retryAfter())
                    .isPositive()
                    .isLessThanOrEqualTo(Duration.ofMinutes(1)));
    assertThat(access.authorize("station-1", bearer(station1), "192.0.2.2"))
        .isEqualTo(allowed(station1));
    assertThat(access.authorize("station-1", bearer(station1), null))
        .as("no address known: no limit")
        .isEqualTo(allowed(station1));
  }

  private static JwtDeviceTokens jwts(RSAKey key) {
    JsonWebKeys keys =
        JsonWebKeys.start(
            () -> new JWKSet(key), "test", Duration.ofHours(1), Duration.ofSeconds(30));
    return new JwtDeviceTokens(
        keys,
        DeviceJwts.ISSUER,
        DeviceJwts.AUDIENCE,
        "sub",
        List.of("RS256"),
        Duration.ofSeconds(60));
  }

  private DeviceCredentialsFile file(Issued... issued) throws IOException {
    Path path = dir.resolve("credentials");
    StringBuilder lines = new StringBuilder();
    for (Issued i : issued) {
      lines.append(i.credential().line()).append('\n');
    }
    Files.writeString(path, lines);
    return DeviceCredentialsFile.load(path);
  }

  /** Allowed, with the credential's id and devices as who sent it. */
  private static Allowed allowed(Issued issued) {
    return new Allowed(
        new AuthContext(
            AuthContext.API_KEY,
            issued.credential().id(),
            Map.of("devices", issued.credential().devices())));
  }

  private static List<String> bearer(Issued issued) {
    return List.of("Bearer " + issued.token());
  }

  private static String missingDetail() {
    return "send Authorization: Bearer <device token>";
  }
}
