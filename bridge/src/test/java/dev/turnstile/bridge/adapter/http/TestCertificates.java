package dev.turnstile.bridge.adapter.http;

import java.io.IOException;
import java.io.OutputStream;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.SecureRandom;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Date;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * Self-signed server certificates made in the test (BouncyCastle), each with a random serial, and
 * their files: PEM (certificate, PKCS#8 key) or PKCS#12. Files are replaced the way a Kubernetes
 * Secret volume changes them: written aside, then moved into place.
 */
public final class TestCertificates {

  private static final SecureRandom RANDOM = new SecureRandom();

  /** A key pair and its certificate for {@code localhost} / {@code 127.0.0.1}. */
  public record Issued(KeyPair keys, X509Certificate certificate) {

    public BigInteger serial() {
      return certificate.getSerialNumber();
    }

    /** The certificate as PEM. */
    public String certificatePem() {
      return pem("CERTIFICATE", encoded(certificate));
    }

    /** The private key as PKCS#8 PEM ({@code PRIVATE KEY}). */
    public String keyPem() {
      return pem("PRIVATE KEY", keys.getPrivate().getEncoded());
    }

    /** Writes a PKCS#12 file with the key and its certificate under {@code password}. */
    public void writePkcs12(Path file, String password) throws Exception {
      KeyStore store = KeyStore.getInstance("PKCS12");
      store.load(null, null);
      store.setKeyEntry(
          "server", keys.getPrivate(), password.toCharArray(), new Certificate[] {certificate});
      Path aside = file.resolveSibling(file.getFileName() + ".new");
      try (OutputStream out = Files.newOutputStream(aside)) {
        store.store(out, password.toCharArray());
      }
      Files.move(aside, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }
  }

  private TestCertificates() {}

  /** An RSA 2048 key pair with a fresh self-signed certificate. */
  public static Issued rsa() throws Exception {
    KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
    generator.initialize(2048);
    return issue(generator.generateKeyPair(), "SHA256withRSA");
  }

  /** An EC P-256 key pair with a fresh self-signed certificate. */
  public static Issued ec() throws Exception {
    KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
    generator.initialize(new ECGenParameterSpec("secp256r1"));
    return issue(generator.generateKeyPair(), "SHA256withECDSA");
  }

  private static Issued issue(KeyPair keys, String signature) throws Exception {
    X500Name name = new X500Name("CN=localhost,O=Turnstile test");
    Instant now = Instant.now();
    JcaX509v3CertificateBuilder builder =
        new JcaX509v3CertificateBuilder(
            name,
            new BigInteger(64, RANDOM).abs().add(BigInteger.ONE),
            Date.from(now.minus(Duration.ofMinutes(5))),
            Date.from(now.plus(Duration.ofDays(1))),
            name,
            keys.getPublic());
    builder.addExtension(
        Extension.subjectAlternativeName,
        false,
        new GeneralNames(
            new GeneralName[] {
              new GeneralName(GeneralName.dNSName, "localhost"),
              new GeneralName(GeneralName.iPAddress, "127.0.0.1")
            }));
    X509Certificate certificate =
        new JcaX509CertificateConverter()
            .getCertificate(
                builder.build(new JcaContentSignerBuilder(signature).build(keys.getPrivate())));
    return new Issued(keys, certificate);
  }

  private static byte[] encoded(X509Certificate certificate) {
    try {
      return certificate.getEncoded();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  /** RFC 7468 text encoding. */
  static String pem(String label, byte[] der) {
    return "-----BEGIN "
        + label
        + "-----\n"
        + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der)
        + "\n-----END "
        + label
        + "-----\n";
  }

  /**
   * A directory laid out as the kubelet lays out a Secret volume: the files live in a timestamped
   * directory, {@code ..data} is a symlink to it and each key is a symlink {@code name ->
   * ..data/name}. An update writes a new directory and swaps {@code ..data} atomically, so the
   * visible files change all at once and their own modification times say nothing.
   */
  public static final class SecretVolume {
    private final Path root;
    private int generation;

    public SecretVolume(Path root) throws IOException {
      this.root = Files.createDirectories(root);
    }

    public Path file(String key) {
      return root.resolve(key);
    }

    /** Publishes a new version of every key at once. */
    public void update(java.util.Map<String, byte[]> files) throws IOException {
      Path version = root.resolve("..v" + (++generation));
      Files.createDirectory(version);
      for (var file : files.entrySet()) {
        Files.write(version.resolve(file.getKey()), file.getValue());
      }
      Path tmp = root.resolve("..data_tmp");
      Files.deleteIfExists(tmp);
      Files.createSymbolicLink(tmp, version.getFileName());
      Files.move(tmp, root.resolve("..data"), StandardCopyOption.ATOMIC_MOVE);
      for (String key : files.keySet()) {
        Path link = root.resolve(key);
        if (!Files.isSymbolicLink(link)) {
          Files.createSymbolicLink(link, Path.of("..data", key));
        }
      }
    }

    /**
     * Publishes the PEM pair as {@code tls.crt} and {@code tls.key}, a kubernetes.io/tls Secret.
     */
    public void updatePem(Issued issued) throws IOException {
      update(
          java.util.Map.of(
              "tls.crt", issued.certificatePem().getBytes(StandardCharsets.US_ASCII),
              "tls.key", issued.keyPem().getBytes(StandardCharsets.US_ASCII)));
    }
  }

  /** Writes aside, then moves into place: a reader sees the old or the new content, whole. */
  public static void replace(Path file, String content) throws IOException {
    Path aside = file.resolveSibling(file.getFileName() + ".new");
    Files.writeString(aside, content, StandardCharsets.US_ASCII);
    Files.move(aside, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }
}
