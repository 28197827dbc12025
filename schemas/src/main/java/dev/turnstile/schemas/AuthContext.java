package dev.turnstile.schemas;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * Who sent an event: the CloudEvents Auth Context extension (cloudevents/spec, {@code
 * cloudevents/extensions/authcontext.md}) as the bridge records it on every record it writes to a
 * raw topic, in binary content mode like the other attributes: headers {@link
 * CloudEventHeaders#AUTH_TYPE ce_authtype}, {@link CloudEventHeaders#AUTH_ID ce_authid} and {@link
 * CloudEventHeaders#AUTH_CLAIMS ce_authclaims} (UTF-8 text; the claims a JSON object of strings).
 * Informational, as the extension says: it tells who the bridge let in, it does not secure the
 * event. It never holds a secret (no token, no key, no signature).
 *
 * <table>
 *   <caption>What the bridge records</caption>
 *   <tr><th>sent with</th><th>authtype</th><th>authid</th><th>authclaims</th></tr>
 *   <tr><td>a device token of the credentials file (HTTP)</td><td>{@value #API_KEY}</td>
 *       <td>the credential's id (16 hex digits, the part of the token before the dot)</td>
 *       <td>{@code devices}: the devices the credential covers, as the file names them</td></tr>
 *   <tr><td>a device JWT (HTTP)</td><td>{@value #SERVICE_ACCOUNT}</td><td>its {@code sub}, when
 *       it has one</td><td>{@code iss}, {@code sub}, and {@code client_id}, {@code azp}, {@code jti}
 *       when the token has them (strings only)</td></tr>
 *   <tr><td>a Service Bus message</td><td>{@value #SYSTEM}</td><td>{@code
 *       <namespace>/<entityPath>}</td><td>{@code namespace}, {@code entity}, and how the bridge
 *       reads the entity: {@code sasKeyName} (a connection string's key name, not the key), or
 *       {@code credential} {@code DefaultAzureCredential} with {@code azureClientId} (the managed
 *       identity it signs in as, when {@code AZURE_CLIENT_ID} is set)</td></tr>
 * </table>
 *
 * <p>A Service Bus message does not carry who sent it, so the bridge records the entity it came
 * from: anyone allowed to send to that entity may have sent it ({@value #SYSTEM}: "an obscured
 * identity", in the extension's terms). With device authentication off ({@code
 * bridge.auth.enabled=false}) HTTP records carry no auth context at all.
 *
 * @param type {@code authtype}, one of the extension's values
 * @param id {@code authid}, or {@code null} when there is none
 * @param claims {@code authclaims}, name to value, sorted by name; empty when there are none
 */
public record AuthContext(String type, String id, Map<String, String> claims) {

  /** Extension attribute names; the headers add {@link CloudEventHeaders#PREFIX}. */
  public static final String TYPE_ATTRIBUTE = "authtype";

  public static final String ID_ATTRIBUTE = "authid";
  public static final String CLAIMS_ATTRIBUTE = "authclaims";

  /** {@code authtype} of a non-user API key: a device token of the credentials file. */
  public static final String API_KEY = "api_key";

  /** {@code authtype} of a non-user principal identifying a service: a device JWT's subject. */
  public static final String SERVICE_ACCOUNT = "service_account";

  /** {@code authtype} of an identity a platform obscures: a message relayed from Service Bus. */
  public static final String SYSTEM = "system";

  public AuthContext {
    Objects.requireNonNull(type, "type");
    claims = Collections.unmodifiableMap(new TreeMap<>(Objects.requireNonNull(claims, "claims")));
  }

  /** A device token of the credentials file. */
  public static AuthContext deviceToken(String credentialId, String devices) {
    return new AuthContext(API_KEY, credentialId, Map.of("devices", devices));
  }

  /**
   * A device JWT.
   *
   * @param claims the token's claims; the safe ones ({@code iss}, {@code sub}, {@code client_id},
   *     {@code azp}, {@code jti}) are kept when they are strings, the rest dropped
   */
  public static AuthContext deviceJwt(Map<String, Object> claims) {
    Map<String, String> kept = new TreeMap<>();
    for (String name : new String[] {"iss", "sub", "client_id", "azp", "jti"}) {
      if (claims.get(name) instanceof String value) {
        kept.put(name, value);
      }
    }
    return new AuthContext(SERVICE_ACCOUNT, kept.get("sub"), kept);
  }

  /**
   * A message relayed from a Service Bus entity.
   *
   * @param credential how the bridge reads the entity, e.g. {@code sasKeyName} and its value
   */
  public static AuthContext serviceBus(
      String namespace, String entityPath, Map<String, String> credential) {
    Map<String, String> claims = new TreeMap<>(credential);
    claims.put("namespace", namespace);
    claims.put("entity", entityPath);
    return new AuthContext(SYSTEM, namespace + "/" + entityPath, claims);
  }

  /** {@code authclaims} as written: a compact JSON object, members sorted by name. */
  public String claimsJson() {
    try {
      return Json.mapper().writeValueAsString(claims);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a map of strings always serialises", e);
    }
  }

  /**
   * The auth context of a record, read through its extension attributes: with the CloudEvents SDK,
   * {@code AuthContext.read(event::getExtension)}; from plain Kafka headers, a function that gives
   * the UTF-8 value of header {@code ce_<name>}.
   *
   * @return empty when the record has no {@code authtype}
   * @throws IllegalArgumentException when {@code authclaims} is not a JSON object
   */
  public static Optional<AuthContext> read(Function<String, Object> extensions) {
    Object type = extensions.apply(TYPE_ATTRIBUTE);
    if (type == null) {
      return Optional.empty();
    }
    Object id = extensions.apply(ID_ATTRIBUTE);
    Object claims = extensions.apply(CLAIMS_ATTRIBUTE);
    return Optional.of(
        new AuthContext(
            type.toString(),
            id == null ? null : id.toString(),
            claims == null ? Map.of() : claims(claims.toString())));
  }

  private static Map<String, String> claims(String json) {
    JsonNode node;
    try {
      node = Json.mapper().readTree(json);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("authclaims is not JSON: " + e.getOriginalMessage(), e);
    }
    if (node == null || !node.isObject()) {
      throw new IllegalArgumentException("authclaims is not a JSON object");
    }
    Map<String, String> claims = new TreeMap<>();
    node.fields()
        .forEachRemaining(
            field ->
                claims.put(
                    field.getKey(),
                    field.getValue().isValueNode()
                        ? field.getValue().asText()
                        : field.getValue().toString()));
    return claims;
  }
}
