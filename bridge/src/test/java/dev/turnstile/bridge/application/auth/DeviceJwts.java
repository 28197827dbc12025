package dev.turnstile.bridge.application.auth;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.JWSSigner;
import com.nimbusds.jose.crypto.ECDSASigner;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.jwk.Curve;
import com.nimbusds.jose.jwk.ECKey;
import com.nimbusds.jose.jwk.JWK;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.gen.ECKeyGenerator;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;

/** An identity provider in a test: its signing keys and the device JWTs it issues. */
public final class DeviceJwts {

  public static final String ISSUER = "https://idp.example/";
  public static final String AUDIENCE = "turnstile-bridge";

  private DeviceJwts() {}

  /** A new RSA key pair (2048 bits) with key id {@code kid}, for RS256. */
  public static RSAKey rsa(String kid) {
    try {
      return new RSAKeyGenerator(2048).keyID(kid).generate();
    } catch (JOSEException e) {
      throw new IllegalStateException(e);
    }
  }

  /** A new P-256 key pair with key id {@code kid}, for ES256. */
  public static ECKey ec(String kid) {
    try {
      return new ECKeyGenerator(Curve.P_256).keyID(kid).generate();
    } catch (JOSEException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Claims of a valid token: the issuer, the audience, {@code sub} = devices, exp in 10 min. */
  public static JWTClaimsSet.Builder claims(String devices) {
    return new JWTClaimsSet.Builder()
        .issuer(ISSUER)
        .audience(AUDIENCE)
        .subject(devices)
        .issueTime(new Date())
        .expirationTime(Date.from(Instant.now().plus(Duration.ofMinutes(10))));
  }

  /** The claims signed with {@code key} (RS256 for RSA, ES256 for EC), typ JWT, compact form. */
  public static String sign(JWK key, JWTClaimsSet claims) {
    return sign(key, claims, JOSEObjectType.JWT);
  }

  /**
   * As {@link #sign(JWK, JWTClaimsSet)} with header {@code typ} {@code type} ({@code null}: none).
   */
  public static String sign(JWK key, JWTClaimsSet claims, JOSEObjectType type) {
    try {
      JWSSigner signer;
      JWSAlgorithm algorithm;
      if (key instanceof RSAKey rsa) {
        signer = new RSASSASigner(rsa);
        algorithm = JWSAlgorithm.RS256;
      } else {
        signer = new ECDSASigner((ECKey) key);
        algorithm = JWSAlgorithm.ES256;
      }
      SignedJWT jwt =
          new SignedJWT(
              new JWSHeader.Builder(algorithm).keyID(key.getKeyID()).type(type).build(), claims);
      jwt.sign(signer);
      return jwt.serialize();
    } catch (JOSEException e) {
      throw new IllegalStateException(e);
    }
  }
}
