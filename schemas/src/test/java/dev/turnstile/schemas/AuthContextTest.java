package dev.turnstile.schemas;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import io.cloudevents.kafka.CloudEventDeserializer;
import io.cloudevents.kafka.CloudEventSerializer;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.Test;

class AuthContextTest {

  @Test
  void theHeaderNamesAreTheExtensionsAttributesInBinaryMode() {
    assertThat(CloudEventHeaders.AUTH_TYPE).isEqualTo("ce_authtype");
    assertThat(CloudEventHeaders.AUTH_ID).isEqualTo("ce_authid");
    assertThat(CloudEventHeaders.AUTH_CLAIMS).isEqualTo("ce_authclaims");
  }

  /**
   * What the bridge writes (the CloudEvents SDK, binary mode) a consumer reads back with the
   * standard deserializer and {@link AuthContext#read}, or from the plain headers.
   */
  @Test
  void aStandardConsumerReadsBackWhatWasWritten() {
    AuthContext sender = AuthContext.deviceToken("0123456789abcdef", "station-*");
    CloudEvent written =
        CloudEventBuilder.v1()
            .withId("e-1")
            .withSource(URI.create("/devices/station-1"))
            .withType("dev.turnstile.device.started.v1")
            .withExtension(AuthContext.TYPE_ATTRIBUTE, sender.type())
            .withExtension(AuthContext.ID_ATTRIBUTE, sender.id())
            .withExtension(AuthContext.CLAIMS_ATTRIBUTE, sender.claimsJson())
            .withData("application/json", "{}".getBytes(StandardCharsets.UTF_8))
            .build();
    RecordHeaders headers = new RecordHeaders();
    byte[] value;
    try (CloudEventSerializer serializer = new CloudEventSerializer()) {
      serializer.configure(Map.of(), false);
      value = serializer.serialize("raw", headers, written);
    }
    assertThat(text(headers.lastHeader(CloudEventHeaders.AUTH_TYPE))).isEqualTo("api_key");
    assertThat(text(headers.lastHeader(CloudEventHeaders.AUTH_CLAIMS)))
        .isEqualTo("{\"devices\":\"station-*\"}");

    CloudEvent read;
    try (CloudEventDeserializer deserializer = new CloudEventDeserializer()) {
      deserializer.configure(Map.of(), false);
      read = deserializer.deserialize("raw", headers, value);
    }
    assertThat(AuthContext.read(read::getExtension)).contains(sender);
    assertThat(AuthContext.read(name -> text(headers.lastHeader(CloudEventHeaders.PREFIX + name))))
        .contains(sender);
  }

  @Test
  void aJwtKeepsOnlyItsIdentifyingStringClaims() {
    AuthContext sender =
        AuthContext.deviceJwt(
            Map.of(
                "iss", "https://idp.example/",
                "sub", "station-1",
                "jti", "t-42",
                "aud", List.of("turnstile"),
                "nonce", "n",
                "cnf", Map.of("jkt", "thumbprint"),
                "exp", 1_900_000_000L));
    assertThat(sender)
        .isEqualTo(
            new AuthContext(
                AuthContext.SERVICE_ACCOUNT,
                "station-1",
                Map.of("iss", "https://idp.example/", "sub", "station-1", "jti", "t-42")));
    assertThat(sender.claimsJson())
        .isEqualTo("{\"iss\":\"https://idp.example/\",\"jti\":\"t-42\",\"sub\":\"station-1\"}");
    assertThat(AuthContext.deviceJwt(Map.of("iss", "i")).id()).as("no sub, no authid").isNull();
  }

  @Test
  void aServiceBusMessageNamesItsEntityAndHowTheBridgeReadsIt() {
    assertThat(AuthContext.serviceBus("ns.example", "billing", Map.of("sasKeyName", "listen")))
        .isEqualTo(
            new AuthContext(
                AuthContext.SYSTEM,
                "ns.example/billing",
                Map.of("namespace", "ns.example", "entity", "billing", "sasKeyName", "listen")));
  }

  @Test
  void noAuthTypeIsNoAuthContextAndBrokenClaimsAreNamed() {
    assertThat(AuthContext.read(name -> null)).isEqualTo(Optional.empty());
    assertThatThrownBy(
            () ->
                AuthContext.read(
                    name ->
                        Map.of(AuthContext.TYPE_ATTRIBUTE, "api_key", "authclaims", "[1]")
                            .get(name)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("authclaims");
  }

  private static String text(Header header) {
    return header == null ? null : new String(header.value(), StandardCharsets.UTF_8);
  }
}
