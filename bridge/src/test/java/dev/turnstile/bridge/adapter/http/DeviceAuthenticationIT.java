package dev.turnstile.bridge.adapter.http;

import static dev.turnstile.bridge.adapter.http.DeviceTraffic.batch;
import static dev.turnstile.bridge.adapter.http.DeviceTraffic.event;
import static dev.turnstile.bridge.adapter.http.DeviceTraffic.problem;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jwt.PlainJWT;
import com.sun.net.httpserver.HttpServer;
import dev.turnstile.bridge.BridgeApplication;
import dev.turnstile.bridge.application.auth.DeviceCredential;
import dev.turnstile.bridge.application.auth.DeviceCredential.Issued;
import dev.turnstile.bridge.application.auth.DeviceJwts;
import dev.turnstile.bridge.config.BridgeConfigLoader;
import dev.turnstile.contracttest.CloudEventsCheck;
import dev.turnstile.runtime.config.InvalidConfigurationException;
import dev.turnstile.runtime.topics.TopicSpec;
import dev.turnstile.schemas.AuthContext;
import dev.turnstile.schemas.CloudEventHeaders;
import dev.turnstile.schemas.TopicCatalogue;
import dev.turnstile.testkit.EmbeddedKafka;
import io.cloudevents.CloudEvent;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Device authentication over real HTTP against a real in-process Kafka: a device's own token is let
 * in; no token, a wrong or malformed one (401) and another device's (403) are refused as
 * problem+json, counted, and write nothing. Device JWTs are accepted beside the file's tokens,
 * checked against a JWK set served over loopback HTTP as an identity provider serves it.
 */
class DeviceAuthenticationIT {

  private static final String PREFIX = "auth.";
  private static final Issued STATION_1 = DeviceCredential.issue("station-1");
  private static final Issued STATION_2 = DeviceCredential.issue("station-2");
  private static final Issued FLEET = DeviceCredential.issue("fleet-*");

  private static final RSAKey IDP_KEY = DeviceJwts.rsa("idp-1");
  private static final AtomicReference<JWKSet> PUBLISHED =
      new AtomicReference<>(new JWKSet(IDP_KEY.toPublicJWK()));

  @TempDir static Path dir;
  private static HttpServer identityProvider;
  private static Path credentials;
  private static EmbeddedKafka kafka;
  private static BridgeApplication bridge;
  private static DeviceTraffic traffic;

  @BeforeAll
  static void start() throws Exception {
    kafka = EmbeddedKafka.start(null);
    kafka.createTopics(
        List.of(TopicSpec.of(TopicCatalogue.DEVICE_EVENTS_RAW, PREFIX, (short) 1).toNewTopic()));
    credentials = dir.resolve("device-credentials");
    Files.write(
        credentials,
        List.of(
            "# station-1, station-2 and the fleet-* devices",
            STATION_1.credential().line(),
            STATION_2.credential().line(),
            FLEET.credential().line()));
    identityProvider =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    identityProvider.createContext(
        "/.well-known/jwks.json",
        exchange -> {
          byte[] body = PUBLISHED.get().toString().getBytes(StandardCharsets.UTF_8);
          exchange.sendResponseHeaders(200, body.length);
          try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
          }
        });
    identityProvider.start();
    bridge = BridgeApplication.start(BridgeConfigLoader.fromMap(config(credentials)));
    traffic =
        new DeviceTraffic(
            kafka.bootstrapServers(),
            TopicCatalogue.DEVICE_EVENTS_RAW.name(PREFIX),
            () -> bridge.httpPort());
  }

  private static Map<String, String> config(Path credentialsFile) {
    return config(
        credentialsFile,
        "http://127.0.0.1:" + identityProvider.getAddress().getPort() + "/.well-known/jwks.json");
  }

  private static Map<String, String> config(Path credentialsFile, String jwksUri) {
    return Map.ofEntries(
        Map.entry("kafka.bootstrap.servers", kafka.bootstrapServers()),
        Map.entry("topic.prefix", PREFIX),
        Map.entry("bridge.http.host", "127.0.0.1"),
        Map.entry("bridge.http.port", "0"),
        Map.entry("bridge.kafka.readiness-interval-ms", "200"),
        Map.entry("bridge.auth.credentials-file", credentialsFile.toString()),
        Map.entry("bridge.auth.reload-interval-ms", "200"),
        Map.entry("bridge.auth.jwt.jwks-uri", jwksUri),
        Map.entry("bridge.auth.jwt.issuer", DeviceJwts.ISSUER),
        Map.entry("bridge.auth.jwt.audience", DeviceJwts.AUDIENCE),
        Map.entry("bridge.auth.jwt.refresh-interval-ms", "1000"));
  }

  @AfterAll
  static void stop() {
    if (identityProvider != null) {
      identityProvider.stop(0);
    }
    for (AutoCloseable closeable : new AutoCloseable[] {traffic, bridge, kafka}) {
      try {
        if (closeable != null) {
          closeable.close();
        }
      } catch (Exception e) {
        // the others still close
      }
    }
  }

  @Test
  void aDeviceWithItsOwnTokenIsLetIn() throws Exception {
    assertThat(
            traffic
                .post("/api/v1/devices/station-1/events", event("own-1"), bearer(STATION_1))
                .statusCode())
        .isEqualTo(202);
    assertThat(
            traffic
                .post(
                    "/api/v1/devices/station-1/events:batch",
                    batch("own-2", "own-3"),
                    bearer(STATION_1))
                .statusCode())
        .as("a batch answers 200 with each event's outcome")
        .isEqualTo(200);
    assertThat(
            traffic
                .post("/api/v1/devices/fleet-7/events", event("own-4"), bearer(FLEET))
                .statusCode())
        .as("a fleet token covers the devices of its prefix")
        .isEqualTo(202);

    assertThat(traffic.eventIdsWrittenFor("station-1", "sentinel-own", bearer(STATION_1)))
        .contains("own-1", "own-2", "own-3", "sentinel-own");
  }

  @Test
  void noTokenOrABadOneIs401AndWritesNothing() throws Exception {
    String path = "/api/v1/devices/fleet-401/events";
    double before = traffic.rejected("unauthenticated");
    String token = FLEET.token();

    HttpResponse<String> missing = traffic.post(path, event("refused-1"));
    assertThat(problem(missing, 401)).isEqualTo("unauthenticated");
    assertThat(missing.headers().allValues("WWW-Authenticate"))
        .containsExactly("Bearer realm=\"turnstile\"");

    char last = token.charAt(token.length() - 1);
    String oneCharOff = token.substring(0, token.length() - 1) + (last == 'A' ? 'B' : 'A');
    HttpResponse<String> wrong = traffic.post(path, event("refused-2"), "Bearer " + oneCharOff);
    assertThat(problem(wrong, 401)).isEqualTo("unauthenticated");
    assertThat(wrong.headers().firstValue("WWW-Authenticate"))
        .hasValue("Bearer realm=\"turnstile\", error=\"invalid_token\"");

    for (String[] malformed :
        List.of(
            new String[] {"Basic " + token},
            new String[] {"Bearer " + token + " extra"},
            new String[] {"Bearer"},
            new String[] {"Bearer " + token, "Bearer " + token})) {
      assertThat(problem(traffic.post(path, event("refused-3"), malformed), 401))
          .as(String.join(" | ", malformed))
          .isEqualTo("unauthenticated");
    }
    assertThat(
            problem(
                traffic.post("/api/v1/devices/fleet-401/events:batch", batch("refused-4")), 401))
        .isEqualTo("unauthenticated");
    assertThat(problem(traffic.post(path, "not even json"), 401))
        .as("the door is before the body is read")
        .isEqualTo("unauthenticated");

    assertThat(traffic.rejected("unauthenticated") - before).isEqualTo(8);
    assertThat(traffic.eventIdsWrittenFor("fleet-401", "sentinel-401", bearer(FLEET)))
        .containsExactly("sentinel-401");
  }

  @Test
  void anotherDevicesTokenIs403AndWritesNothing() throws Exception {
    double before = traffic.rejected("forbidden");

    HttpResponse<String> single =
        traffic.post("/api/v1/devices/station-1/events", event("refused-5"), bearer(STATION_2));
    assertThat(problem(single, 403)).isEqualTo("forbidden");
    assertThat(single.headers().firstValue("WWW-Authenticate"))
        .hasValue("Bearer realm=\"turnstile\", error=\"insufficient_scope\"");
    assertThat(
            problem(
                traffic.post(
                    "/api/v1/devices/station-1/events:batch",
                    batch("refused-6"),
                    bearer(STATION_2)),
                403))
        .isEqualTo("forbidden");
    assertThat(
            problem(
                traffic.post("/api/v1/devices/station-1/events", event("refused-7"), bearer(FLEET)),
                403))
        .as("a fleet token covers only its prefix")
        .isEqualTo("forbidden");

    assertThat(traffic.rejected("forbidden") - before).isEqualTo(3);
    assertThat(traffic.eventIdsWrittenFor("station-1", "sentinel-403", bearer(STATION_1)))
        .contains("sentinel-403")
        .noneMatch(id -> id.startsWith("refused-"));
  }

  @Test
  void aCredentialAddedToTheFileIsTakenWithoutARestartAndARemovedOneIsRefused() throws Exception {
    Issued added = DeviceCredential.issue("station-new");
    String path = "/api/v1/devices/station-new/events";
    assertThat(traffic.post(path, event("new-0"), bearer(added)).statusCode()).isEqualTo(401);

    Files.writeString(
        credentials, Files.readString(credentials) + added.credential().line() + "\n");
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> traffic.post(path, event("new-1"), bearer(added)).statusCode() == 202);

    Files.writeString(
        credentials, Files.readString(credentials).replace(added.credential().line() + "\n", ""));
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> traffic.post(path, event("new-2"), bearer(added)).statusCode() == 401);
    assertThat(
            traffic
                .post("/api/v1/devices/station-1/events", event("still-1"), bearer(STATION_1))
                .statusCode())
        .isEqualTo(202);
  }

  @Test
  void aMissingOrInvalidCredentialsFileStopsTheStartNamingTheKey() throws Exception {
    assertThatThrownBy(
            () -> BridgeApplication.start(BridgeConfigLoader.fromMap(config(dir.resolve("none")))))
        .isInstanceOf(InvalidConfigurationException.class)
        .hasMessageContaining("bridge.auth.credentials-file")
        .hasMessageContaining("no credentials file")
        .hasMessageContaining("turnstile device-token");
    Path broken = dir.resolve("broken");
    Files.write(
        broken, List.of(STATION_1.credential().line(), "0123456789abcdef station-3 sha256:x"));
    assertThatThrownBy(() -> BridgeApplication.start(BridgeConfigLoader.fromMap(config(broken))))
        .isInstanceOf(InvalidConfigurationException.class)
        .hasMessageContaining("bridge.auth.credentials-file")
        .hasMessageContaining("line 2");
  }

  @Test
  void aDeviceJwtIsLetInBesideTheFilesTokensAndABadOneWritesNothing() throws Exception {
    String path = "/api/v1/devices/jwt-1/events";
    String own = jwt(IDP_KEY, DeviceJwts.claims("jwt-1").build());
    assertThat(traffic.post(path, event("jwt-ok-1"), own).statusCode()).isEqualTo(202);
    assertThat(
            traffic
                .post("/api/v1/devices/station-1/events", event("jwt-ok-2"), bearer(STATION_1))
                .statusCode())
        .as("the credentials file's tokens still work")
        .isEqualTo(202);
    double unauthenticated = traffic.rejected("unauthenticated");
    double forbidden = traffic.rejected("forbidden");

    HttpResponse<String> other =
        traffic.post(
            "/api/v1/devices/jwt-1/events",
            event("jwt-refused-1"),
            jwt(IDP_KEY, DeviceJwts.claims("jwt-2").build()));
    assertThat(problem(other, 403)).isEqualTo("forbidden");
    assertThat(other.body()).contains("the JWT is not valid for device jwt-1");
    HttpResponse<String> expired =
        traffic.post(
            path,
            event("jwt-refused-2"),
            jwt(
                IDP_KEY,
                DeviceJwts.claims("jwt-1")
                    .expirationTime(java.util.Date.from(java.time.Instant.now().minusSeconds(600)))
                    .build()));
    assertThat(problem(expired, 401)).isEqualTo("unauthenticated");
    assertThat(expired.headers().firstValue("WWW-Authenticate"))
        .hasValue("Bearer realm=\"turnstile\", error=\"invalid_token\"");
    assertThat(expired.body()).contains("Expired JWT");
    String unsigned = "Bearer " + new PlainJWT(DeviceJwts.claims("jwt-1").build()).serialize();
    assertThat(problem(traffic.post(path, event("jwt-refused-3"), unsigned), 401))
        .isEqualTo("unauthenticated");
    String unknownKey = jwt(DeviceJwts.rsa("not-published"), DeviceJwts.claims("jwt-1").build());
    assertThat(problem(traffic.post(path, event("jwt-refused-4"), unknownKey), 401))
        .isEqualTo("unauthenticated");

    assertThat(traffic.rejected("unauthenticated") - unauthenticated).isEqualTo(3);
    assertThat(traffic.rejected("forbidden") - forbidden).isEqualTo(1);
    assertThat(traffic.eventIdsWrittenFor("jwt-1", "sentinel-jwt", own))
        .contains("jwt-ok-1", "sentinel-jwt")
        .noneMatch(id -> id.startsWith("jwt-refused-"));
  }

  /**
   * Issue 25, item 4: every record says who sent it in the CloudEvents Auth Context extension
   * (headers {@code ce_authtype}, {@code ce_authid}, {@code ce_authclaims}), single events and
   * batches, for the file's tokens and for JWTs; a standard consumer (the CloudEvents SDK's
   * deserializer, then {@link AuthContext#read}) gets it back, and no header holds a token.
   */
  @Test
  void everyRecordSaysWhoSentIt() throws Exception {
    String jwt = jwt(IDP_KEY, DeviceJwts.claims("jwt-who").jwtID("token-7").build());
    assertThat(
            traffic
                .post("/api/v1/devices/station-1/events", event("who-1"), bearer(STATION_1))
                .statusCode())
        .isEqualTo(202);
    assertThat(
            traffic
                .post(
                    "/api/v1/devices/fleet-who/events:batch",
                    batch("who-2", "who-3"),
                    bearer(FLEET))
                .statusCode())
        .isEqualTo(200);
    assertThat(traffic.post("/api/v1/devices/jwt-who/events", event("who-4"), jwt).statusCode())
        .isEqualTo(202);

    AuthContext station =
        new AuthContext(
            AuthContext.API_KEY, STATION_1.credential().id(), Map.of("devices", "station-1"));
    AuthContext fleet =
        new AuthContext(AuthContext.API_KEY, FLEET.credential().id(), Map.of("devices", "fleet-*"));
    AuthContext subject =
        new AuthContext(
            AuthContext.SERVICE_ACCOUNT,
            "jwt-who",
            Map.of("iss", DeviceJwts.ISSUER, "sub", "jwt-who", "jti", "token-7"));
    Map<String, AuthContext> expected =
        Map.of(
            "station-1/who-1", station,
            "fleet-who/who-2", fleet,
            "fleet-who/who-3", fleet,
            "jwt-who/who-4", subject);
    List<String> secrets =
        List.of(
            STATION_1.token().substring(17),
            FLEET.token().substring(17),
            jwt.substring(jwt.lastIndexOf('.') + 1));
    for (Map.Entry<String, AuthContext> entry : expected.entrySet()) {
      String[] deviceAndEvent = entry.getKey().split("/");
      ConsumerRecord<String, byte[]> record = traffic.written(deviceAndEvent[0], deviceAndEvent[1]);
      assertThat(DeviceTraffic.header(record, CloudEventHeaders.AUTH_TYPE))
          .isEqualTo(entry.getValue().type());
      assertThat(DeviceTraffic.header(record, CloudEventHeaders.AUTH_ID))
          .isEqualTo(entry.getValue().id());
      CloudEvent event =
          CloudEventsCheck.assertBinaryCloudEvent(record.topic(), record.headers(), record.value());
      assertThat(AuthContext.read(event::getExtension))
          .as(entry.getKey())
          .contains(entry.getValue());
      for (var header : record.headers()) {
        String value = new String(header.value(), StandardCharsets.UTF_8);
        assertThat(secrets).noneMatch(value::contains);
      }
    }
  }

  @Test
  void aKeyTheIdentityProviderRotatesInIsTakenWithoutARestart() throws Exception {
    RSAKey rotated = DeviceJwts.rsa("idp-2");
    String token = jwt(rotated, DeviceJwts.claims("jwt-rotated").build());
    String path = "/api/v1/devices/jwt-rotated/events";
    assertThat(traffic.post(path, event("rotated-0"), token).statusCode()).isEqualTo(401);

    PUBLISHED.set(new JWKSet(List.of(IDP_KEY.toPublicJWK(), rotated.toPublicJWK())));
    await()
        .atMost(Duration.ofSeconds(15))
        .until(() -> traffic.post(path, event("rotated-1"), token).statusCode() == 202);
  }

  @Test
  void anUnreachableIdentityProviderStopsTheStartNamingTheKey() {
    int closed;
    try (java.net.ServerSocket socket =
        new java.net.ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      closed = socket.getLocalPort();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    assertThatThrownBy(
            () ->
                BridgeApplication.start(
                    BridgeConfigLoader.fromMap(
                        config(credentials, "http://127.0.0.1:" + closed + "/jwks.json"))))
        .isInstanceOf(InvalidConfigurationException.class)
        .hasMessageContaining("bridge.auth.jwt.jwks-uri")
        .hasMessageContaining("could not fetch the JWK set");
  }

  private static String jwt(com.nimbusds.jose.jwk.JWK key, com.nimbusds.jwt.JWTClaimsSet claims) {
    return "Bearer " + DeviceJwts.sign(key, claims);
  }

  private static String bearer(Issued issued) {
    return "Bearer " + issued.token();
  }
}
