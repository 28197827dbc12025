package dev.turnstile.bridge.adapter.http;

import dev.turnstile.bridge.config.BridgeConfig.HttpTls;
import dev.turnstile.bridge.config.BridgeConfigModel;
import dev.turnstile.runtime.config.InvalidConfigurationException;
import dev.turnstile.runtime.config.Setting;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.net.KeyCertOptions;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.core.net.PfxOptions;
import io.vertx.core.net.ServerSSLOptions;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.net.ssl.KeyManager;
import javax.net.ssl.X509KeyManager;

/**
 * The HTTP listener's key material as read from its files at one moment: the bytes, the Vert.x
 * options built from those bytes (never from the paths, so what was checked is what is served), and
 * the certificate they serve. {@link #read} refuses material a TLS handshake could not use: a file
 * that cannot be read, PEM or PKCS#12 that does not parse (or a wrong password), no private key
 * with a certificate, a private key that does not belong to its certificate.
 */
final class TlsKeyMaterial {

  /** Key algorithm of a certificate's public key to the signature that proves the pair. */
  private static final Map<String, String> PROOF =
      Map.of("RSA", "SHA256withRSA", "EC", "SHA256withECDSA", "EdDSA", "Ed25519");

  private static final List<String> KEY_TYPES = List.of("RSA", "EC", "EdDSA", "Ed25519", "DSA");

  private final byte[][] content;
  private final KeyCertOptions keyCert;
  private final X509Certificate certificate;

  private TlsKeyMaterial(byte[][] content, KeyCertOptions keyCert, X509Certificate certificate) {
    this.content = content;
    this.keyCert = keyCert;
    this.certificate = certificate;
  }

  /**
   * Reads and checks the key material {@code tls} names.
   *
   * @throws InvalidConfigurationException naming the key whose file is at fault ({@link
   *     BridgeConfigModel#HTTP_TLS_CERTIFICATE_FILE}, {@link BridgeConfigModel#HTTP_TLS_KEY_FILE}
   *     or {@link BridgeConfigModel#HTTP_TLS_KEYSTORE_FILE}); the message never holds the password
   *     or key bytes
   */
  static TlsKeyMaterial read(Vertx vertx, HttpTls tls) {
    byte[][] content =
        tls.pkcs12()
            ? new byte[][] {bytes(tls.keystoreFile(), BridgeConfigModel.HTTP_TLS_KEYSTORE_FILE)}
            : new byte[][] {
              bytes(tls.certificateFile(), BridgeConfigModel.HTTP_TLS_CERTIFICATE_FILE),
              bytes(tls.keyFile(), BridgeConfigModel.HTTP_TLS_KEY_FILE)
            };
    return of(vertx, tls, content);
  }

  /** Whether the files still hold what this was read from (content, not modification times). */
  boolean sameContentAs(TlsKeyMaterial other) {
    return Arrays.deepEquals(content, other.content);
  }

  /** Options for a server or for {@code HttpServer.updateSSLOptions}: this material, TLS 1.2+. */
  ServerSSLOptions sslOptions(HttpTls tls) {
    return new ServerSSLOptions()
        .setKeyCertOptions(keyCert.copy())
        .setEnabledSecureTransportProtocols(new LinkedHashSet<>(tls.protocols()));
  }

  /** The served certificate, for logs: subject, serial, SHA-256 fingerprint, expiry. */
  String describe() {
    return "subject '"
        + certificate.getSubjectX500Principal().getName()
        + "', serial "
        + certificate.getSerialNumber().toString(16)
        + ", SHA-256 "
        + fingerprint()
        + ", valid until "
        + certificate.getNotAfter().toInstant();
  }

  /** When the served certificate expires. */
  Instant notAfter() {
    return certificate.getNotAfter().toInstant();
  }

  private String fingerprint() {
    try {
      return HexFormat.of()
          .formatHex(MessageDigest.getInstance("SHA-256").digest(certificate.getEncoded()));
    } catch (GeneralSecurityException e) {
      return "unknown";
    }
  }

  private static TlsKeyMaterial of(Vertx vertx, HttpTls tls, byte[][] content) {
    KeyCertOptions keyCert =
        tls.pkcs12()
            ? new PfxOptions()
                .setValue(Buffer.buffer(content[0]))
                .setPassword(tls.keystorePassword().value())
            : new PemKeyCertOptions()
                .setCertValue(Buffer.buffer(content[0]))
                .setKeyValue(Buffer.buffer(content[1]));
    Setting<?> key =
        tls.pkcs12()
            ? BridgeConfigModel.HTTP_TLS_KEYSTORE_FILE
            : BridgeConfigModel.HTTP_TLS_KEY_FILE;
    String files =
        tls.pkcs12() ? tls.keystoreFile().toString() : tls.certificateFile() + ", " + tls.keyFile();
    if (!tls.pkcs12() && !looksLikePem(content[0], "CERTIFICATE")) {
      throw InvalidConfigurationException.of(
          BridgeConfigModel.HTTP_TLS_CERTIFICATE_FILE,
          tls.certificateFile() + " holds no PEM CERTIFICATE block");
    }
    X509KeyManager manager;
    try {
      manager = x509(keyCert.getKeyManagerFactory(vertx).getKeyManagers());
    } catch (Exception e) {
      throw InvalidConfigurationException.of(
          key, "cannot read the key material in " + files + ": " + reason(e));
    }
    Set<String> aliases = new LinkedHashSet<>();
    for (String type : KEY_TYPES) {
      String[] found = manager.getServerAliases(type, null);
      if (found != null) {
        aliases.addAll(List.of(found));
      }
    }
    if (aliases.isEmpty()) {
      throw InvalidConfigurationException.of(
          key, files + " holds no private key with its certificate");
    }
    String alias = aliases.iterator().next();
    X509Certificate[] chain = manager.getCertificateChain(alias);
    if (chain == null || chain.length == 0) {
      throw InvalidConfigurationException.of(key, files + " holds a private key without a chain");
    }
    if (!belongTogether(manager.getPrivateKey(alias), chain[0])) {
      throw InvalidConfigurationException.of(
          key,
          "the private key in "
              + files
              + " does not belong to the certificate "
              + chain[0].getSubjectX500Principal().getName());
    }
    return new TlsKeyMaterial(content, keyCert, chain[0]);
  }

  /**
   * Signs with the private key and verifies with the certificate's public key: a mismatched pair
   * loads without complaint and fails only in every client's handshake.
   */
  private static boolean belongTogether(PrivateKey key, X509Certificate certificate) {
    String algorithm = PROOF.get(certificate.getPublicKey().getAlgorithm());
    if (algorithm == null) {
      return true; // no proof known for this key type; the handshake will tell
    }
    try {
      byte[] probe = "turnstile key pair check".getBytes(StandardCharsets.US_ASCII);
      Signature signer = Signature.getInstance(algorithm);
      signer.initSign(key);
      signer.update(probe);
      byte[] signature = signer.sign();
      Signature verifier = Signature.getInstance(algorithm);
      verifier.initVerify(certificate.getPublicKey());
      verifier.update(probe);
      return verifier.verify(signature);
    } catch (GeneralSecurityException e) {
      return false;
    }
  }

  private static X509KeyManager x509(KeyManager[] managers) {
    for (KeyManager manager : managers) {
      if (manager instanceof X509KeyManager x509) {
        return x509;
      }
    }
    throw new IllegalArgumentException("no X.509 key manager");
  }

  private static boolean looksLikePem(byte[] content, String label) {
    return new String(content, StandardCharsets.US_ASCII).contains("-----BEGIN " + label + "-----");
  }

  private static byte[] bytes(Path file, Setting<?> key) {
    try {
      return Files.readAllBytes(file);
    } catch (IOException | RuntimeException e) {
      throw InvalidConfigurationException.of(key, "cannot read " + file + ": " + reason(e));
    }
  }

  /** The innermost message: what the JDK or Vert.x found wrong, without a stack trace. */
  private static String reason(Throwable e) {
    Throwable cause = e;
    while (cause.getCause() != null && cause.getCause() != cause) {
      cause = cause.getCause();
    }
    String message = cause.getMessage();
    return cause.getClass().getSimpleName() + (message == null ? "" : ": " + message);
  }
}
