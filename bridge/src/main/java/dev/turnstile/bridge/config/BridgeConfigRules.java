package dev.turnstile.bridge.config;

import static dev.turnstile.bridge.config.BridgeConfigModel.*;

import dev.turnstile.runtime.config.ConfigModel.Rule;
import dev.turnstile.runtime.config.Settings;
import java.util.List;
import java.util.Optional;
import java.util.function.BiConsumer;
import java.util.regex.Pattern;

/**
 * The rules between the bridge's keys, each checked at start-up with the others; every broken rule
 * is reported, by the key to change.
 */
final class BridgeConfigRules {

  static final Pattern ENDPOINT_HOST =
      Pattern.compile("(?i)(?:^|;)\\s*Endpoint\\s*=\\s*[a-z]+://([^:/;]+)");
  private static final Pattern EMULATOR =
      Pattern.compile("(?i)(?:^|;)\\s*UseDevelopmentEmulator\\s*=\\s*true\\s*(?:;|$)");

  static final List<Rule> ALL =
      List.of(
          BridgeConfigRules::idleTimeoutOutwaitsKafka,
          BridgeConfigRules::aBatchFitsInFlight,
          BridgeConfigRules::deviceAccessHasCredentials,
          BridgeConfigRules::deviceJwtsHaveIssuerAndAudience,
          BridgeConfigRules::httpsHasOneKindOfKeyMaterial,
          BridgeConfigRules::serviceBusHasAConnection,
          BridgeConfigRules::entitiesNameOneSource,
          BridgeConfigRules::aSessionIsTakenOneMessageAtATime,
          BridgeConfigRules::callbacksOutlastNeitherLockNorShutdown);

  private BridgeConfigRules() {}

  /** A request waiting for Kafka's ack sends nothing meanwhile: it must not be cut off as idle. */
  private static void idleTimeoutOutwaitsKafka(Settings s, List<String> problems) {
    long idle = s.get(HTTP_IDLE_TIMEOUT_MS).toMillis();
    long ack = s.get(KAFKA_ACK_TIMEOUT_MS).toMillis();
    if (idle <= ack) {
      problems.add(
          "%s: %d must exceed %s (%d)"
              .formatted(HTTP_IDLE_TIMEOUT_MS, idle, KAFKA_ACK_TIMEOUT_MS, ack));
    }
  }

  /** A batch's writes go in flight together; a larger batch could never be taken. */
  private static void aBatchFitsInFlight(Settings s, List<String> problems) {
    int batch = s.get(HTTP_BATCH_MAX_EVENTS);
    int inFlight = s.get(KAFKA_MAX_IN_FLIGHT);
    if (batch > inFlight) {
      problems.add(
          "%s: %d must not exceed %s (%d)"
              .formatted(HTTP_BATCH_MAX_EVENTS, batch, KAFKA_MAX_IN_FLIGHT, inFlight));
    }
  }

  private static void deviceAccessHasCredentials(Settings s, List<String> problems) {
    if (s.get(AUTH_ENABLED)
        && s.get(AUTH_CREDENTIALS_FILE).isEmpty()
        && s.get(AUTH_JWT_JWKS_URI).isEmpty()) {
      problems.add(
          ("%s: must be set while %s is true (the default), unless %s is: the file of device"
                  + " credentials (`turnstile device-token` makes them); set %s=false to accept"
                  + " unauthenticated device requests")
              .formatted(AUTH_CREDENTIALS_FILE, AUTH_ENABLED, AUTH_JWT_JWKS_URI, AUTH_ENABLED));
    }
  }

  private static void deviceJwtsHaveIssuerAndAudience(Settings s, List<String> problems) {
    for (var key : List.of(AUTH_JWT_ISSUER, AUTH_JWT_AUDIENCE)) {
      if (s.get(AUTH_ENABLED) && s.get(AUTH_JWT_JWKS_URI).isPresent() && s.get(key).isEmpty()) {
        problems.add(
            "%s: must be set while %s is: device JWTs are checked for it"
                .formatted(key, AUTH_JWT_JWKS_URI));
      }
    }
  }

  /**
   * While enabled: exactly one of the PEM pair (both files) and the PKCS#12 file; while not, none
   * of them is looked at. Whether the files hold usable key material is checked when the server
   * starts (it needs the TLS engine).
   */
  private static void httpsHasOneKindOfKeyMaterial(Settings s, List<String> problems) {
    boolean certificate = s.get(HTTP_TLS_CERTIFICATE_FILE).isPresent();
    boolean key = s.get(HTTP_TLS_KEY_FILE).isPresent();
    if (!s.get(HTTP_TLS_ENABLED)) {
      return;
    }
    if (s.get(HTTP_TLS_KEYSTORE_FILE).isPresent() && (certificate || key)) {
      problems.add(
          "%s: set either it or %s with %s, not both"
              .formatted(HTTP_TLS_KEYSTORE_FILE, HTTP_TLS_CERTIFICATE_FILE, HTTP_TLS_KEY_FILE));
    } else if (s.get(HTTP_TLS_KEYSTORE_FILE).isEmpty() && !(certificate && key)) {
      problems.add(
          "%s: must be set while %s is true: give the PEM pair (%s, %s) or %s"
              .formatted(
                  certificate ? HTTP_TLS_KEY_FILE : HTTP_TLS_CERTIFICATE_FILE,
                  HTTP_TLS_ENABLED,
                  HTTP_TLS_CERTIFICATE_FILE,
                  HTTP_TLS_KEY_FILE,
                  HTTP_TLS_KEYSTORE_FILE));
    }
  }

  /** A connection string (its {@code Endpoint} names the namespace) or a namespace. */
  private static void serviceBusHasAConnection(Settings s, List<String> problems) {
    Optional<String> connection = s.get(SERVICEBUS_CONNECTION_STRING);
    boolean namespace = s.get(SERVICEBUS_NAMESPACE).isPresent();
    if (s.instances(ENTITY).isEmpty()) {
      return;
    }
    if (connection.isEmpty() && !namespace) {
      problems.add(
          "%s: or %s is required when %s is set"
              .formatted(SERVICEBUS_CONNECTION_STRING, SERVICEBUS_NAMESPACE, SERVICEBUS_ENTITIES));
    } else if (connection.filter(c -> EMULATOR.matcher(c).find()).isPresent()
        && !s.get(SERVICEBUS_LOCAL_MODE)) {
      problems.add(
          "%s: has UseDevelopmentEmulator=true, which turns TLS off: allowed only with %s=true"
                  .formatted(SERVICEBUS_CONNECTION_STRING, SERVICEBUS_LOCAL_MODE)
              + " (tests and local runs)");
    } else if (!namespace && !ENDPOINT_HOST.matcher(connection.orElseThrow()).find()) {
      problems.add(SERVICEBUS_CONNECTION_STRING + ": has no Endpoint=sb://<namespace>/");
    }
  }

  /** Each entity by the prefix of its keys, {@code bridge.servicebus.entity.<name>.}. */
  private static void eachEntity(Settings s, BiConsumer<String, Settings.Instance> rule) {
    s.instances(ENTITY).forEach((name, e) -> rule.accept(SERVICEBUS_ENTITY_PREFIX + name + ".", e));
  }

  private static void entitiesNameOneSource(Settings s, List<String> problems) {
    eachEntity(
        s,
        (p, entity) -> {
          boolean queue = entity.get(ENTITY_QUEUE).isPresent();
          boolean topic = entity.get(ENTITY_TOPIC).isPresent();
          if (queue == topic || topic != entity.get(ENTITY_SUBSCRIPTION).isPresent()) {
            problems.add(
                "%s%s: or %s%s with %s%s, is required (not both)"
                    .formatted(p, ENTITY_QUEUE, p, ENTITY_TOPIC, p, ENTITY_SUBSCRIPTION));
          }
        });
  }

  /**
   * A session's messages are taken in order, one at a time (the session pump asks for one message
   * and settles it before the next): more callbacks per session would not run, so the key to raise
   * is the number of sessions at once.
   */
  private static void aSessionIsTakenOneMessageAtATime(Settings s, List<String> problems) {
    eachEntity(
        s,
        (p, entity) -> {
          int calls = entity.get(ENTITY_MAX_CONCURRENT_CALLS);
          if (entity.get(ENTITY_SESSIONS) && calls > 1) {
            problems.add(
                ("%1$s%2$s: %3$d must be 1 with %1$s%4$s=true: a session's messages are taken in"
                        + " order, one at a time; raise %1$s%5$s for more at once")
                    .formatted(
                        p,
                        ENTITY_MAX_CONCURRENT_CALLS,
                        calls,
                        ENTITY_SESSIONS,
                        ENTITY_MAX_CONCURRENT_SESSIONS));
          }
        });
  }

  /**
   * Lock renewal runs only while a callback waits for Kafka, so the wait must end before renewal
   * does; and a shorter drain would cut off callbacks still waiting, their messages redelivered and
   * the Service Bus clients closed under running handlers.
   */
  private static void callbacksOutlastNeitherLockNorShutdown(Settings s, List<String> problems) {
    long settle = s.get(SERVICEBUS_SETTLE_TIMEOUT_MS).toMillis();
    eachEntity(
        s,
        (p, entity) -> {
          long renew = entity.get(ENTITY_MAX_AUTO_LOCK_RENEW_MS).toMillis();
          if (settle >= renew) {
            problems.add(
                ("%s: %d must be below %s%s (%d): the lock is renewed only while the callback"
                        + " waits for Kafka")
                    .formatted(
                        SERVICEBUS_SETTLE_TIMEOUT_MS,
                        settle,
                        p,
                        ENTITY_MAX_AUTO_LOCK_RENEW_MS,
                        renew));
          }
        });
    long shutdown = s.get(SHUTDOWN_TIMEOUT_MS).toMillis();
    if (!s.instances(ENTITY).isEmpty() && shutdown < settle) {
      problems.add(
          "%s: %d must be at least %s (%d) so that shutdown can drain message callbacks"
              .formatted(SHUTDOWN_TIMEOUT_MS, shutdown, SERVICEBUS_SETTLE_TIMEOUT_MS, settle));
    }
  }
}
