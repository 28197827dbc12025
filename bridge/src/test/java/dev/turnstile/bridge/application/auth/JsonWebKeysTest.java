package dev.turnstile.bridge.application.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.RSAKey;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The JWK set fetched over real HTTP from a loopback server standing in for the identity provider.
 */
class JsonWebKeysTest {

  private static final RSAKey FIRST = DeviceJwts.rsa("first");
  private static final RSAKey SECOND = DeviceJwts.rsa("second");

  private final AtomicReference<String> body = new AtomicReference<>();
  private HttpServer server;

  @BeforeEach
  void serve() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext(
        "/jwks.json",
        exchange -> {
          byte[] bytes = body.get().getBytes(StandardCharsets.UTF_8);
          exchange.getResponseHeaders().add("Content-Type", "application/json");
          exchange.sendResponseHeaders(200, bytes.length);
          try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
          }
        });
    server.start();
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  private URI uri(String userInfoAndQuery) {
    return URI.create(
        "http://"
            + userInfoAndQuery.split("\\?")[0]
            + "127.0.0.1:"
            + server.getAddress().getPort()
            + "/jwks.json"
            + (userInfoAndQuery.contains("?") ? "?" + userInfoAndQuery.split("\\?")[1] : ""));
  }

  @Test
  void theSetIsFetchedAndARotationIsTakenOnTheNextFetch() {
    // A JWK set as identity providers publish it, with a private key by mistake: dropped.
    body.set(new JWKSet(FIRST).toString(false));
    try (JsonWebKeys keys = JsonWebKeys.fetch(uri(""), Duration.ofHours(1))) {
      assertThat(keys.current().getKeys()).extracting(k -> k.getKeyID()).containsExactly("first");
      assertThat(keys.current().getKeys()).noneMatch(k -> k.isPrivate());

      body.set(new JWKSet(List.of(FIRST.toPublicJWK(), SECOND.toPublicJWK())).toString());
      assertThat(keys.refresh()).isTrue();
      assertThat(keys.current().getKeys())
          .extracting(k -> k.getKeyID())
          .containsExactly("first", "second");
      assertThat(keys.refresh()).as("the same set again").isFalse();

      body.set("{\"keys\": 7}");
      assertThat(keys.refresh()).isFalse();
      assertThat(keys.current().getKeys()).hasSize(2);
    }
  }

  @Test
  void aFirstFetchThatFailsStopsTheStartWithTheReason() {
    body.set("not json");
    assertThatThrownBy(() -> JsonWebKeys.fetch(uri(""), Duration.ofHours(1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("could not fetch the JWK set from http://127.0.0.1:")
        .hasMessageContaining("ParseException");
    body.set("{\"keys\": []}");
    assertThatThrownBy(() -> JsonWebKeys.fetch(uri(""), Duration.ofHours(1)))
        .hasMessageContaining("the set holds no public key");
    server.stop(0);
    assertThatThrownBy(() -> JsonWebKeys.fetch(uri(""), Duration.ofHours(1)))
        .hasMessageContaining("ConnectException");
  }

  @Test
  void userInfoAndQueryOfTheUriAreNeverShown() {
    body.set("not json");
    assertThatThrownBy(
            () -> JsonWebKeys.fetch(uri("user:s3cret@?token=s3cret"), Duration.ofHours(1)))
        .hasMessageNotContaining("s3cret");
    body.set(new JWKSet(FIRST.toPublicJWK()).toString());
    try (JsonWebKeys keys =
        JsonWebKeys.fetch(uri("user:s3cret@?token=s3cret"), Duration.ofHours(1))) {
      assertThat(keys.toString()).doesNotContain("s3cret").contains("/jwks.json");
    }
  }
}
