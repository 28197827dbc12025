package dev.turnstile.bridge.adapter.http;

import static dev.turnstile.bridge.adapter.http.DeviceTraffic.event;
import static dev.turnstile.bridge.adapter.http.DeviceTraffic.problem;
import static org.assertj.core.api.Assertions.assertThat;

import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.RSAKey;
import com.sun.net.httpserver.HttpServer;
import dev.turnstile.bridge.BridgeApplication;
import dev.turnstile.bridge.application.auth.DeviceCredential;
import dev.turnstile.bridge.application.auth.DeviceCredential.Issued;
import dev.turnstile.bridge.application.auth.DeviceJwts;
import dev.turnstile.bridge.config.BridgeConfigLoader;
import dev.turnstile.runtime.topics.TopicSpec;
import dev.turnstile.schemas.TopicCatalogue;
import dev.turnstile.testkit.EmbeddedKafka;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 25, item 5: a flood of forged JWTs from one client address is turned away before any
 * signature check once the address has used up its failures (429 {@code authentication-throttled}
 * with {@code Retry-After}), while another client is let in. The bridge sits behind a trusted proxy
 * here (loopback, {@code bridge.http.trusted-proxies}), which names the client in {@code
 * X-Forwarded-For}; what the client itself writes to the left of it is not believed.
 */
class AuthenticationFloodIT {

  private static final String PREFIX = "flood.";
  private static final int BURST = 5;
  private static final String ATTACKER = "198.51.100.7";
  private static final String NEIGHBOUR = "198.51.100.8";
  private static final Issued FLEET = DeviceCredential.issue("*");
  private static final RSAKey IDP_KEY = DeviceJwts.rsa("idp-1");

  @TempDir static Path dir;
  private static HttpServer identityProvider;
  private static EmbeddedKafka kafka;
  private static BridgeApplication bridge;
  private static DeviceTraffic traffic;

  @BeforeAll
  static void start() throws Exception {
    kafka = EmbeddedKafka.start(null);
    kafka.createTopics(
        List.of(TopicSpec.of(TopicCatalogue.DEVICE_EVENTS_RAW, PREFIX, (short) 1).toNewTopic()));
    Path credentials = dir.resolve("device-credentials");
    Files.write(credentials, List.of(FLEET.credential().line()));
    identityProvider =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    identityProvider.createContext(
        "/jwks",
        exchange -> {
          byte[] body =
              new JWKSet(IDP_KEY.toPublicJWK()).toString().getBytes(StandardCharsets.UTF_8);
          exchange.sendResponseHeaders(200, body.length);
          try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
          }
        });
    identityProvider.start();
    bridge =
        BridgeApplication.start(
            BridgeConfigLoader.fromMap(
                Map.ofEntries(
                    Map.entry("kafka.bootstrap.servers", kafka.bootstrapServers()),
                    Map.entry("topic.prefix", PREFIX),
                    Map.entry("bridge.http.host", "127.0.0.1"),
                    Map.entry("bridge.http.port", "0"),
                    Map.entry("bridge.http.trusted-proxies", "127.0.0.1, ::1"),
                    Map.entry("bridge.auth.credentials-file", credentials.toString()),
                    Map.entry(
                        "bridge.auth.jwt.jwks-uri",
                        "http://127.0.0.1:" + identityProvider.getAddress().getPort() + "/jwks"),
                    Map.entry("bridge.auth.jwt.issuer", DeviceJwts.ISSUER),
                    Map.entry("bridge.auth.jwt.audience", DeviceJwts.AUDIENCE),
                    Map.entry("bridge.auth.failure-limit.per-minute", "1"),
                    Map.entry("bridge.auth.failure-limit.burst", Integer.toString(BURST)))));
    traffic =
        new DeviceTraffic(
            kafka.bootstrapServers(),
            TopicCatalogue.DEVICE_EVENTS_RAW.name(PREFIX),
            () -> bridge.httpPort());
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
  void aFloodOfForgedJwtsIsTurnedAwayBeforeItsSignaturesAreChecked() throws Exception {
    // Signed by a key the identity provider never published, under its kid: a forged signature.
    String forged =
        "Bearer "
            + DeviceJwts.sign(DeviceJwts.rsa(IDP_KEY.getKeyID()), DeviceJwts.claims("d-1").build());
    String path = "/api/v1/devices/d-1/events";
    double throttledBefore = traffic.rejected("authentication-throttled");

    for (int i = 0; i < BURST; i++) {
      assertThat(problem(post(path, forged, ATTACKER), 401)).isEqualTo("unauthenticated");
    }
    HttpResponse<String> turnedAway = post(path, forged, ATTACKER);
    assertThat(problem(turnedAway, 429)).isEqualTo("authentication-throttled");
    assertThat(turnedAway.headers().firstValue("Retry-After").map(Integer::parseInt))
        .hasValueSatisfying(seconds -> assertThat(seconds).isBetween(50, 60));
    assertThat(problem(post(path, "Bearer " + FLEET.token(), ATTACKER), 429))
        .as("a good token from that address is not even looked at")
        .isEqualTo("authentication-throttled");
    assertThat(problem(post(path, forged, NEIGHBOUR + ", " + ATTACKER), 429))
        .as("what the client writes left of the proxy's entry is not believed")
        .isEqualTo("authentication-throttled");

    assertThat(post(path, "Bearer " + FLEET.token(), NEIGHBOUR).statusCode())
        .as("another client behind the same proxy")
        .isEqualTo(202);
    assertThat(traffic.rejected("authentication-throttled") - throttledBefore).isEqualTo(3);
  }

  private static HttpResponse<String> post(String path, String authorization, String forwardedFor)
      throws Exception {
    return DeviceTraffic.HTTP.send(
        HttpRequest.newBuilder(traffic.uri(path))
            .timeout(Duration.ofSeconds(20))
            .header("Content-Type", "application/json")
            .header("Authorization", authorization)
            .header("X-Forwarded-For", forwardedFor)
            .POST(BodyPublishers.ofString(event("flood-" + System.nanoTime())))
            .build(),
        BodyHandlers.ofString());
  }
}
