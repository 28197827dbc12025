package dev.turnstile.schemas;

/**
 * CloudEvents 1.0 attributes in the Kafka protocol binding, binary content mode: each attribute
 * travels as a header named {@code ce_<attribute>}, UTF-8 encoded; the data is the record value.
 *
 * @see <a
 *     href="https://github.com/cloudevents/spec/blob/v1.0.2/cloudevents/bindings/kafka-protocol-binding.md">Kafka
 *     protocol binding</a>
 */
public final class CloudEventHeaders {
  /** Prefix of every attribute's header: attribute {@code id} travels as {@code ce_id}. */
  public static final String PREFIX = "ce_";

  public static final String SPEC_VERSION = "ce_specversion";
  public static final String ID = "ce_id";
  public static final String SOURCE = "ce_source";
  public static final String TYPE = "ce_type";
  public static final String TIME = "ce_time";
  public static final String SUBJECT = "ce_subject";
  public static final String DATA_SCHEMA = "ce_dataschema";
  public static final String CONTENT_TYPE = "content-type";

  /**
   * The CloudEvents Auth Context extension ({@link AuthContext}), on every record the bridge writes
   * to a raw topic: {@code authtype} ({@code api_key}, {@code service_account} or {@code system}).
   */
  public static final String AUTH_TYPE = PREFIX + AuthContext.TYPE_ATTRIBUTE;

  /** Auth Context {@code authid}: the credential id, the JWT subject, or the Service Bus entity. */
  public static final String AUTH_ID = PREFIX + AuthContext.ID_ATTRIBUTE;

  /** Auth Context {@code authclaims}: a JSON object of strings, never a secret. */
  public static final String AUTH_CLAIMS = PREFIX + AuthContext.CLAIMS_ATTRIBUTE;

  /** {@code ce_type} of device events: {@code dev.turnstile.device.<type>.v1}. */
  public static String deviceEventType(DeviceEventType type) {
    return "dev.turnstile.device." + type.name().toLowerCase(java.util.Locale.ROOT) + ".v1";
  }

  /** {@code ce_source} of a device's events: {@code /devices/<deviceId>}. */
  public static String deviceSource(String deviceId) {
    return "/devices/" + deviceId;
  }

  private CloudEventHeaders() {}
}
