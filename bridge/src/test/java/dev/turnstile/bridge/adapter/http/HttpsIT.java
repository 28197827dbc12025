package dev.turnstile.bridge.adapter.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.turnstile.bridge.adapter.http.TestCertificates.Issued;
import dev.turnstile.bridge.adapter.http.TestCertificates.SecretVolume;
import dev.turnstile.bridge.config.BridgeConfig;
import dev.turnstile.bridge.config.BridgeConfigLoader;
import dev.turnstile.bridge.config.BridgeConfigModel;
import dev.turnstile.bridge.metrics.BridgeMetrics;
import dev.turnstile.bridge.port.in.AcceptDeviceEventUseCase;
import dev.turnstile.bridge.port.in.AcceptDeviceEventUseCase.AcceptDeviceEventCommand;
import dev.turnstile.bridge.port.in.AuthorizeDeviceRequestUseCase.Allowed;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.math.BigInteger;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Real HTTPS over loopback, against the server instances on two event loops: PEM and PKCS#12 key
 * material serve, plain HTTP on the TLS port gets no answer, and replaced key material reaches
 * every NEW connection without a restart (the served certificate's serial tells which), while a
 * broken replacement leaves the previous material in place and is counted.
 */
class HttpsIT {

  private static final int EVENT_LOOPS = 2;
  private static final Duration RELOAD = Duration.ofMillis(100);

  /** These tests send no device events. */
  private static final AcceptDeviceEventUseCase NO_EVENTS =
      new AcceptDeviceEventUseCase() {
        @Override
        public CompletionStage<Outcome> accept(AcceptDeviceEventCommand command) {
          throw new AssertionError("no device events in this test");
        }

        @Override
        public CompletionStage<List<Outcome>> acceptAll(List<AcceptDeviceEventCommand> commands) {
          throw new AssertionError("no device events in this test");
        }
      };

  @TempDir Path dir;

  private Vertx vertx;
  private HttpBridgeServer server;
  private SimpleMeterRegistry registry;

  @AfterEach
  void stop() throws Exception {
    if (server != null) {
      server
          .shutdown(Duration.ZERO)
          .toCompletionStage()
          .toCompletableFuture()
          .get(10, TimeUnit.SECONDS);
    }
    if (vertx != null) {
      vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void pemKeyMaterialServesAndAReplacementReachesNewConnections() throws Exception {
    SecretVolume secret = new SecretVolume(dir.resolve("tls"));
    Issued first = TestCertificates.rsa();
    secret.updatePem(first);
    int port =
        start(
            Map.of(
                BridgeConfigModel.HTTP_TLS_CERTIFICATE_FILE.name(),
                    secret.file("tls.crt").toString(),
                BridgeConfigModel.HTTP_TLS_KEY_FILE.name(), secret.file("tls.key").toString()));

    Served served = get(port);
    assertThat(served.statusLine()).isEqualTo("HTTP/1.1 200 OK");
    assertThat(served.serial()).isEqualTo(first.serial());
    assertThat(served.protocol()).isIn("TLSv1.2", "TLSv1.3");

    // Replaced as the kubelet replaces a Secret volume: a symlink swap, an EC key this time.
    Issued second = TestCertificates.ec();
    secret.updatePem(second);
    awaitEveryNewConnectionServes(port, second.serial());
    assertThat(reloads("applied")).isEqualTo(1.0);

    // A broken replacement (a key of another certificate) keeps the previous material.
    Issued stranger = TestCertificates.rsa();
    secret.update(
        Map.of(
            "tls.crt", TestCertificates.rsa().certificatePem().getBytes(StandardCharsets.US_ASCII),
            "tls.key", stranger.keyPem().getBytes(StandardCharsets.US_ASCII)));
    await().atMost(Duration.ofSeconds(10)).until(() -> reloads("failed") >= 1.0);
    for (int i = 0; i < 2 * EVENT_LOOPS; i++) {
      assertThat(get(port).serial()).isEqualTo(second.serial());
    }
    // ... and so does garbage.
    secret.update(Map.of("tls.crt", "garbage".getBytes(), "tls.key", "garbage".getBytes()));
    await().atMost(Duration.ofSeconds(10)).until(() -> reloads("failed") >= 2.0);
    assertThat(get(port).serial()).isEqualTo(second.serial());
    assertThat(reloads("applied")).isEqualTo(1.0);

    // Fixed files are taken again.
    Issued third = TestCertificates.rsa();
    secret.updatePem(third);
    awaitEveryNewConnectionServes(port, third.serial());
  }

  @Test
  void pkcs12KeyMaterialServesAndIsReloaded() throws Exception {
    Path keystore = dir.resolve("server.p12");
    Issued first = TestCertificates.rsa();
    first.writePkcs12(keystore, "p12-password");
    int port =
        start(
            Map.of(
                BridgeConfigModel.HTTP_TLS_KEYSTORE_FILE.name(), keystore.toString(),
                BridgeConfigModel.HTTP_TLS_KEYSTORE_PASSWORD.name(), "p12-password",
                BridgeConfigModel.HTTP_TLS_PROTOCOLS.name(), "TLSv1.2"));

    Served served = get(port);
    assertThat(served.statusLine()).isEqualTo("HTTP/1.1 200 OK");
    assertThat(served.serial()).isEqualTo(first.serial());
    assertThat(served.protocol()).as("only the configured version").isEqualTo("TLSv1.2");

    Issued second = TestCertificates.ec();
    second.writePkcs12(keystore, "p12-password");
    awaitEveryNewConnectionServes(port, second.serial());

    // A keystore under another password cannot be opened: the previous material stays.
    TestCertificates.rsa().writePkcs12(keystore, "another-password");
    await().atMost(Duration.ofSeconds(10)).until(() -> reloads("failed") >= 1.0);
    assertThat(get(port).serial()).isEqualTo(second.serial());
  }

  @Test
  void plainHttpOnTheTlsPortGetsNoAnswer() throws Exception {
    SecretVolume secret = new SecretVolume(dir.resolve("tls"));
    secret.updatePem(TestCertificates.rsa());
    int port =
        start(
            Map.of(
                BridgeConfigModel.HTTP_TLS_CERTIFICATE_FILE.name(),
                    secret.file("tls.crt").toString(),
                BridgeConfigModel.HTTP_TLS_KEY_FILE.name(), secret.file("tls.key").toString()));
    HttpClient plain = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    HttpRequest request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/health/live"))
            .timeout(Duration.ofSeconds(10))
            .build();
    assertThatThrownBy(() -> plain.send(request, BodyHandlers.ofString()))
        .as("a plain-HTTP request is not answered, it fails at once")
        .isInstanceOf(IOException.class)
        .isNotInstanceOf(java.net.http.HttpTimeoutException.class);
    assertThat(get(port).statusLine()).isEqualTo("HTTP/1.1 200 OK");
  }

  private int start(Map<String, String> tls) throws Exception {
    Map<String, String> values = new HashMap<>(tls);
    values.put("kafka.bootstrap.servers", "127.0.0.1:9");
    values.put("bridge.auth.enabled", "false"); // not about device authentication
    values.put("bridge.http.host", "127.0.0.1");
    values.put("bridge.http.port", "0");
    values.put("bridge.http.event-loops", Integer.toString(EVENT_LOOPS));
    values.put(BridgeConfigModel.HTTP_TLS_ENABLED.name(), "true");
    values.put(
        BridgeConfigModel.HTTP_TLS_RELOAD_INTERVAL_MS.name(), Long.toString(RELOAD.toMillis()));
    BridgeConfig config = BridgeConfigLoader.fromMap(values);
    vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(EVENT_LOOPS));
    registry = new SimpleMeterRegistry();
    BridgeMetrics metrics = new BridgeMetrics(registry);
    server =
        HttpBridgeServer.start(
                vertx,
                config,
                (deviceId, authorization) -> new Allowed(),
                NO_EVENTS,
                metrics,
                () -> true,
                () -> "",
                ServerTls.load(vertx, config.tls(), metrics))
            .toCompletionStage()
            .toCompletableFuture()
            .get(10, TimeUnit.SECONDS);
    return server.port();
  }

  /** Several connections in a row (Vert.x hands them to the instances in turn) all serve it. */
  private static void awaitEveryNewConnectionServes(int port, BigInteger serial) {
    await()
        .atMost(Duration.ofSeconds(10))
        .pollInterval(Duration.ofMillis(50))
        .untilAsserted(
            () -> {
              for (int i = 0; i < 2 * EVENT_LOOPS; i++) {
                Served served = get(port);
                assertThat(served.serial()).isEqualTo(serial);
                assertThat(served.statusLine()).isEqualTo("HTTP/1.1 200 OK");
              }
            });
  }

  private double reloads(String outcome) {
    var counter = registry.find(BridgeMetrics.HTTP_TLS_RELOADS).tag("outcome", outcome).counter();
    return counter == null ? 0 : counter.count();
  }

  record Served(BigInteger serial, String protocol, String statusLine) {}

  /** A new TLS connection: the certificate it was served, its protocol, and a GET's status line. */
  private static Served get(int port) throws Exception {
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(null, new TrustManager[] {new AnyServer()}, null);
    try (SSLSocket socket =
        (SSLSocket) context.getSocketFactory().createSocket("127.0.0.1", port)) {
      socket.setSoTimeout(10_000);
      socket.startHandshake();
      X509Certificate certificate = (X509Certificate) socket.getSession().getPeerCertificates()[0];
      socket
          .getOutputStream()
          .write(
              "GET /health/live HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
                  .getBytes(StandardCharsets.US_ASCII));
      socket.getOutputStream().flush();
      String status =
          new BufferedReader(
                  new InputStreamReader(socket.getInputStream(), StandardCharsets.US_ASCII))
              .readLine();
      return new Served(certificate.getSerialNumber(), socket.getSession().getProtocol(), status);
    }
  }

  /** Trusts whatever the server presents: these tests compare the certificate itself. */
  private static final class AnyServer implements X509TrustManager {
    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) {}

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) {}

    @Override
    public X509Certificate[] getAcceptedIssuers() {
      return new X509Certificate[0];
    }
  }
}
