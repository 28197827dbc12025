package dev.turnstile.bridge.application.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaMethod;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import dev.turnstile.bridge.application.auth.Authentication.Authenticated;
import dev.turnstile.bridge.application.auth.Authentication.Refused;
import dev.turnstile.bridge.application.auth.DeviceCredential.Issued;
import dev.turnstile.bridge.port.in.AuthorizeDeviceRequestUseCase.Refusal;
import dev.turnstile.schemas.AuthContext;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DeviceCredentialsTest {

  private final Issued station1 = DeviceCredential.issue("station-1");
  private final Issued station2 = DeviceCredential.issue("station-2");
  private final Issued fleet = DeviceCredential.issue("fleet-a-*");
  private final DeviceCredentials credentials =
      DeviceCredentials.parse(
          List.of(
              "# comment",
              "",
              station1.credential().line(),
              station2.credential().line(),
              "  " + fleet.credential().line() + "  "));

  @Test
  void theDevicesOwnTokenIsAccepted() {
    assertThat(authenticate("station-1", "Bearer " + station1.token()))
        .as("who sent it: the credential's id and devices, never the token")
        .isEqualTo(
            new Authenticated(
                new AuthContext(
                    "api_key", station1.credential().id(), Map.of("devices", "station-1"))));
    assertThat(authenticate("station-1", "bearer   " + station1.token() + " "))
        .as("the scheme is case-insensitive (RFC 9110 §11.1)")
        .isInstanceOf(Authenticated.class);
  }

  @Test
  void anotherDevicesValidTokenIsForbidden() {
    assertRefused(authenticate("station-1", "Bearer " + station2.token()), Refusal.FORBIDDEN);
    assertRefused(authenticate("fleet-b-1", "Bearer " + fleet.token()), Refusal.FORBIDDEN);
    assertRefused(authenticate("station-10", "Bearer " + station1.token()), Refusal.FORBIDDEN);
  }

  @Test
  void aFleetTokenCoversTheDevicesOfItsPrefix() {
    assertThat(authenticate("fleet-a-1", "Bearer " + fleet.token()))
        .isInstanceOf(Authenticated.class);
    assertThat(authenticate("fleet-a-", "Bearer " + fleet.token()))
        .isInstanceOf(Authenticated.class);
    Issued everyone = DeviceCredential.issue("*");
    DeviceCredentials all = DeviceCredentials.parse(List.of(everyone.credential().line()));
    assertThat(all.authenticate("anything", List.of("Bearer " + everyone.token())))
        .isInstanceOf(Authenticated.class);
  }

  @Test
  void aWrongTokenIsInvalid() {
    String token = station1.token();
    char last = token.charAt(token.length() - 1);
    String oneCharOff = token.substring(0, token.length() - 1) + (last == 'A' ? 'B' : 'A');
    assertRefused(authenticate("station-1", "Bearer " + oneCharOff), Refusal.INVALID);
    assertRefused(
        authenticate("station-1", "Bearer " + token.substring(0, token.length() - 1)),
        Refusal.INVALID);
    assertRefused(
        authenticate("station-1", "Bearer 0123456789abcdef." + token.substring(17)),
        Refusal.INVALID);
    assertRefused(authenticate("station-1", "Bearer no-dot-at-all"), Refusal.INVALID);
    DeviceCredentials none = DeviceCredentials.parse(List.of());
    assertRefused(none.authenticate("station-1", List.of("Bearer " + token)), Refusal.INVALID);
  }

  @Test
  void aMissingOrForeignSchemeIsMissing() {
    assertRefused(credentials.authenticate("station-1", List.of()), Refusal.MISSING);
    assertRefused(authenticate("station-1", "Basic " + station1.token()), Refusal.MISSING);
    assertRefused(authenticate("station-1", "Digest"), Refusal.MISSING);
  }

  @Test
  void aMalformedHeaderIsMalformed() {
    for (String header :
        List.of(
            "Bearer",
            "Bearer ",
            "Bearer " + station1.token() + " extra",
            "Bearer " + station1.token() + ",x",
            "Bearer\t" + station1.token(),
            "Bearer " + station1.token() + "=a",
            "Bearer tok\u00e9n",
            "",
            "  ",
            "B3arer " + station1.token())) {
      assertRefused(authenticate("station-1", header), Refusal.MALFORMED);
    }
    assertRefused(
        credentials.authenticate(
            "station-1", List.of("Bearer " + station1.token(), "Bearer " + station1.token())),
        Refusal.MALFORMED);
  }

  @Test
  void noRefusalEchoesTheToken() {
    String secret = station1.token().substring(17);
    for (String header :
        List.of(
            "Bearer " + station1.token() + " extra",
            "Basic " + station1.token(),
            "Bearer x" + station1.token(),
            station1.token())) {
      Authentication answer = authenticate("station-2", header);
      assertThat(answer).isInstanceOf(Refused.class);
      assertThat(((Refused) answer).detail()).doesNotContain(secret);
    }
    assertThat(((Refused) authenticate("station-2", "Bearer " + station1.token())).detail())
        .doesNotContain(secret);
  }

  @Test
  void theFileHoldsASaltedDigestNeverTheToken() {
    String line = station1.credential().line();
    assertThat(line).doesNotContain(station1.token().substring(17));
    assertThat(line).startsWith(station1.credential().id() + " station-1 sha256:");
    assertThat(station1.token()).startsWith(station1.credential().id() + ".");
    assertThat(station1.toString()).doesNotContain(station1.token());

    byte[] salt1 = new byte[16];
    byte[] salt2 = new byte[16];
    salt2[0] = 1;
    assertThat(DeviceCredential.digest(salt1, "same-token"))
        .as("the salt changes the digest of the same token")
        .isNotEqualTo(DeviceCredential.digest(salt2, "same-token"));
    assertThat(DeviceCredential.parse(line).line()).isEqualTo(line);
  }

  @Test
  void aBadFileNamesTheLineNotItsContent() {
    String good = station1.credential().line();
    String badDigest = good.substring(0, good.length() - 4);
    assertThatThrownBy(() -> DeviceCredentials.parse(List.of("# x", good, badDigest)))
        .hasMessageStartingWith("line 3: ")
        .hasMessageNotContaining(badDigest.split(" ")[2]);
    assertThatThrownBy(() -> DeviceCredentials.parse(List.of(good, good)))
        .hasMessageContaining("line 2")
        .hasMessageContaining("twice");
    for (String bad :
        List.of(
            "abc station-1 " + good.split(" ")[2],
            station1.credential().id() + " station 1 x",
            station1.credential().id() + " sta*tion " + good.split(" ")[2],
            station1.credential().id() + " station-1 md5:a:b",
            station1.credential().id() + " station-1 sha256:!!:!!")) {
      assertThatThrownBy(() -> DeviceCredentials.parse(List.of(bad)))
          .as(bad)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("line 1: ");
    }
    assertThatThrownBy(() -> DeviceCredential.issue("two words"))
        .isInstanceOf(IllegalArgumentException.class);
  }

  /**
   * The digests are compared with the JDK's constant-time compare, never an early-exit one, and the
   * check runs for an unknown credential id too (against a decoy).
   */
  @Test
  void tokensAreComparedInConstantTime() {
    JavaClass credential = new ClassFileImporter().importClass(DeviceCredential.class);
    assertThat(calls(credential.getMethod("matches", String.class)))
        .contains("java.security.MessageDigest.isEqual")
        .noneMatch(call -> call.startsWith("java.util.Arrays.equals"))
        .noneMatch(call -> call.startsWith("java.lang.String.equals"))
        .noneMatch(call -> call.startsWith("java.lang.String.contentEquals"));
    JavaClass store = new ClassFileImporter().importClass(DeviceCredentials.class);
    assertThat(calls(store.getMethod("authenticateToken", String.class, String.class)))
        .contains(DeviceCredential.class.getName() + ".matches")
        .noneMatch(call -> call.startsWith("java.util.Arrays.equals"));
  }

  private static List<String> calls(JavaMethod method) {
    return method.getMethodCallsFromSelf().stream()
        .map(call -> call.getTarget().getOwner().getName() + "." + call.getTarget().getName())
        .toList();
  }

  private Authentication authenticate(String deviceId, String authorization) {
    return credentials.authenticate(deviceId, List.of(authorization));
  }

  private static void assertRefused(Authentication answer, Refusal refusal) {
    assertThat(answer).isInstanceOf(Refused.class);
    assertThat(((Refused) answer).refusal()).isEqualTo(refusal);
  }
}
