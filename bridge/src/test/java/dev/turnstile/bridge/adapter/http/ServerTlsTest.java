package dev.turnstile.bridge.adapter.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.turnstile.bridge.adapter.http.TestCertificates.Issued;
import dev.turnstile.bridge.config.BridgeConfig;
import dev.turnstile.bridge.config.BridgeConfigLoader;
import dev.turnstile.bridge.config.BridgeConfigModel;
import dev.turnstile.bridge.metrics.BridgeMetrics;
import dev.turnstile.runtime.config.InvalidConfigurationException;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Vertx;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Key material that cannot serve is refused at start-up with the key at fault named (the process
 * then exits 2), never with the password in the message.
 */
class ServerTlsTest {

  static Vertx vertx;

  @TempDir Path dir;

  @BeforeAll
  static void vertx() {
    vertx = Vertx.vertx();
  }

  @AfterAll
  static void close() {
    vertx.close();
  }

  @Test
  void offMeansNoKeyMaterialIsRead() {
    assertThat(ServerTls.load(vertx, config(Map.of()).tls(), metrics())).isNull();
  }

  /**
   * Kubernetes TLS Secrets often hold PKCS#1 ({@code RSA PRIVATE KEY}) keys. (A SEC 1 {@code EC
   * PRIVATE KEY} as BouncyCastle writes it fails in Vert.x 5.0.7 with "Invalid DER: stream too
   * short": docs/http-api.md asks for EC keys as PKCS#8.)
   */
  @Test
  void aTraditionalRsaKeyLoads() throws Exception {
    traditionalKeyLoads(TestCertificates.rsa());
  }

  private void traditionalKeyLoads(Issued issued) throws Exception {
    {
      StringWriter traditional = new StringWriter();
      try (JcaPEMWriter writer = new JcaPEMWriter(traditional)) {
        writer.writeObject(issued.keys().getPrivate());
      }
      assertThat(traditional.toString()).containsPattern("BEGIN (RSA|EC) PRIVATE KEY");
      Path certificate = Files.writeString(dir.resolve("tls.crt"), issued.certificatePem());
      Path key = Files.writeString(dir.resolve("tls.key"), traditional.toString());
      assertThat(load(pem(certificate, key))).isNotNull();
    }
  }

  @Test
  void aMissingCertificateFileNamesItsKey() throws Exception {
    Issued issued = TestCertificates.rsa();
    Path key = Files.writeString(dir.resolve("tls.key"), issued.keyPem());
    assertThatThrownBy(() -> load(pem(dir.resolve("absent.crt"), key)))
        .isInstanceOf(InvalidConfigurationException.class)
        .hasMessageStartingWith(
            BridgeConfigModel.HTTP_TLS_CERTIFICATE_FILE.name() + ": cannot read ")
        .hasMessageContaining("absent.crt");
  }

  @Test
  void aKeyOfAnotherCertificateNamesTheKeyFile() throws Exception {
    Path certificate =
        Files.writeString(dir.resolve("tls.crt"), TestCertificates.rsa().certificatePem());
    Path key = Files.writeString(dir.resolve("tls.key"), TestCertificates.rsa().keyPem());
    assertThatThrownBy(() -> load(pem(certificate, key)))
        .isInstanceOf(InvalidConfigurationException.class)
        .hasMessageStartingWith(
            BridgeConfigModel.HTTP_TLS_KEY_FILE.name() + ": the private key in ")
        .hasMessageContaining("does not belong to the certificate");
  }

  @Test
  void pemThatIsNotKeyMaterialIsRefused() throws Exception {
    Path certificate = Files.writeString(dir.resolve("tls.crt"), "not a certificate");
    Path key = Files.writeString(dir.resolve("tls.key"), TestCertificates.rsa().keyPem());
    assertThatThrownBy(() -> load(pem(certificate, key)))
        .hasMessageStartingWith(BridgeConfigModel.HTTP_TLS_CERTIFICATE_FILE.name() + ": ");
    Path goodCertificate =
        Files.writeString(dir.resolve("good.crt"), TestCertificates.rsa().certificatePem());
    Path garbageKey = Files.writeString(dir.resolve("bad.key"), "-----BEGIN PRIVATE KEY-----\nAA");
    assertThatThrownBy(() -> load(pem(goodCertificate, garbageKey)))
        .hasMessageStartingWith(
            BridgeConfigModel.HTTP_TLS_KEY_FILE.name() + ": cannot read the key material");
  }

  @Test
  void aWrongPkcs12PasswordNamesTheKeystoreAndHidesThePasswords() throws Exception {
    Path keystore = dir.resolve("server.p12");
    TestCertificates.rsa().writePkcs12(keystore, "the-right-password");
    Map<String, String> values = new HashMap<>();
    values.put(BridgeConfigModel.HTTP_TLS_KEYSTORE_FILE.name(), keystore.toString());
    values.put(BridgeConfigModel.HTTP_TLS_KEYSTORE_PASSWORD.name(), "a-wrong-password");
    assertThatThrownBy(() -> load(values))
        .isInstanceOf(InvalidConfigurationException.class)
        .hasMessageStartingWith(BridgeConfigModel.HTTP_TLS_KEYSTORE_FILE.name() + ": cannot read ")
        .message()
        .doesNotContain("a-wrong-password")
        .doesNotContain("the-right-password");
    values.put(BridgeConfigModel.HTTP_TLS_KEYSTORE_PASSWORD.name(), "the-right-password");
    BridgeConfig config = config(values);
    assertThat(ServerTls.load(vertx, config.tls(), metrics())).isNotNull();
    assertThat(config.toString()).doesNotContain("the-right-password").contains("[hidden]");
  }

  @Test
  void theConfigurationWantsOneKindOfKeyMaterial() {
    assertThatThrownBy(() -> config(Map.of(BridgeConfigModel.HTTP_TLS_KEY_FILE.name(), "/k")))
        .hasMessageStartingWith(
            BridgeConfigModel.HTTP_TLS_CERTIFICATE_FILE.name() + ": must be set");
    assertThatThrownBy(
            () ->
                config(
                    Map.of(
                        BridgeConfigModel.HTTP_TLS_KEYSTORE_FILE.name(), "/p12",
                        BridgeConfigModel.HTTP_TLS_CERTIFICATE_FILE.name(), "/c")))
        .hasMessageStartingWith(
            BridgeConfigModel.HTTP_TLS_KEYSTORE_FILE.name() + ": set either it or");
    assertThatThrownBy(
            () ->
                config(
                    Map.of(
                        BridgeConfigModel.HTTP_TLS_KEYSTORE_FILE.name(), "/p12",
                        BridgeConfigModel.HTTP_TLS_PROTOCOLS.name(), "TLSv1.1,TLSv1.2")))
        .hasMessageContaining(BridgeConfigModel.HTTP_TLS_PROTOCOLS.name())
        .hasMessageContaining("TLSv1.1 is not offered");
  }

  private static Map<String, String> pem(Path certificate, Path key) {
    return Map.of(
        BridgeConfigModel.HTTP_TLS_CERTIFICATE_FILE.name(), certificate.toString(),
        BridgeConfigModel.HTTP_TLS_KEY_FILE.name(), key.toString());
  }

  private static ServerTls load(Map<String, String> tls) {
    return ServerTls.load(vertx, config(tls).tls(), metrics());
  }

  private static BridgeMetrics metrics() {
    return new BridgeMetrics(new SimpleMeterRegistry());
  }

  private static BridgeConfig config(Map<String, String> tls) {
    Map<String, String> values = new HashMap<>(tls);
    values.put("kafka.bootstrap.servers", "127.0.0.1:9");
    values.put("bridge.auth.enabled", "false");
    values.put(BridgeConfigModel.HTTP_TLS_ENABLED.name(), tls.isEmpty() ? "false" : "true");
    return BridgeConfigLoader.fromMap(values);
  }
}
