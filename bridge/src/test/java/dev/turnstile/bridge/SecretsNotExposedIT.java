package dev.turnstile.bridge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import ch.qos.logback.core.AppenderBase;
import dev.turnstile.bridge.adapter.http.TestCertificates;
import dev.turnstile.bridge.application.auth.DeviceCredential;
import dev.turnstile.bridge.application.auth.DeviceCredential.Issued;
import dev.turnstile.bridge.config.BridgeConfigLoader;
import dev.turnstile.runtime.topics.TopicSpec;
import dev.turnstile.schemas.TopicCatalogue;
import dev.turnstile.testkit.EmbeddedKafka;
import dev.turnstile.testkit.servicebus.ServiceBusDouble;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * Runs the bridge with secrets of known values (device tokens, Kafka passwords, the Service Bus
 * key, the HTTPS keystore's password and that of a replacement it refuses), sends it right and
 * wrong requests carrying them, then searches everything it wrote for them: its logs (every logger,
 * Turnstile's at DEBUG, the Kafka clients' and the Azure SDK's at INFO), every answer's status
 * line, headers and body, and {@code /metrics}. None may appear.
 */
class SecretsNotExposedIT {

  private static final String KAFKA_PASSWORD = "kafka-password-5e1f0c";
  private static final String SSL_KEY_PASSWORD = "ssl-key-password-77a2d9";
  private static final String TRUSTSTORE_PASSWORD = "truststore-password-0b3e4a";
  private static final String SERVICEBUS_KEY = "servicebus-key-9c6d21";
  private static final String KEYSTORE_PASSWORD = "keystore-password-3f81c6";
  private static final String OTHER_KEYSTORE_PASSWORD = "keystore-password-next-d40e17";
  private HttpClient https;

  @TempDir Path dir;

  @Test
  void noSecretIsInTheLogsTheAnswersOrTheMetrics() throws Exception {
    Issued station1 = DeviceCredential.issue("station-1");
    Issued station2 = DeviceCredential.issue("station-2");
    Map<String, String> secrets = new LinkedHashMap<>();
    secrets.put("station-1 token", station1.token());
    secrets.put("station-1 token secret", station1.token().substring(17));
    secrets.put("station-2 token secret", station2.token().substring(17));
    secrets.put("Kafka SASL password", KAFKA_PASSWORD);
    secrets.put("Kafka SSL key password", SSL_KEY_PASSWORD);
    secrets.put("Kafka truststore password", TRUSTSTORE_PASSWORD);
    secrets.put("Service Bus key", SERVICEBUS_KEY);
    secrets.put("HTTPS PKCS#12 password", KEYSTORE_PASSWORD);
    secrets.put("HTTPS PKCS#12 password of a refused reload", OTHER_KEYSTORE_PASSWORD);
    TestCertificates.Issued server = TestCertificates.rsa();
    Path keystore = dir.resolve("server.p12");
    server.writePkcs12(keystore, KEYSTORE_PASSWORD);
    https = trusting(server.certificate());
    Path credentials = dir.resolve("device-credentials");
    Files.write(credentials, List.of(station1.credential().line(), station2.credential().line()));

    StringBuilder answers = new StringBuilder();
    String logs;
    try (EmbeddedKafka kafka = EmbeddedKafka.start(null);
        ServiceBusDouble serviceBus = ServiceBusDouble.start()) {
      kafka.createTopics(
          List.of(
              TopicSpec.of(TopicCatalogue.DEVICE_EVENTS_RAW, "", (short) 1).toNewTopic(),
              TopicSpec.of(TopicCatalogue.SERVICEBUS_MESSAGES_RAW, "", (short) 1).toNewTopic()));
      serviceBus.createQueue("billing");
      Map<String, String> config = new HashMap<>();
      config.put("kafka.bootstrap.servers", kafka.bootstrapServers());
      config.put("bridge.http.host", "127.0.0.1");
      config.put("bridge.http.port", "0");
      config.put("bridge.kafka.readiness-interval-ms", "200");
      config.put("bridge.auth.credentials-file", credentials.toString());
      config.put("bridge.http.tls.enabled", "true");
      config.put("bridge.http.tls.keystore-file", keystore.toString());
      config.put("bridge.http.tls.keystore-password", KEYSTORE_PASSWORD);
      config.put("bridge.http.tls.reload-interval-ms", "100");
      // Password-typed keys that a PLAINTEXT client carries but does not use.
      config.put(
          "kafka.sasl.jaas.config",
          "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"bridge\""
              + " password=\""
              + KAFKA_PASSWORD
              + "\";");
      config.put("kafka.ssl.key.password", SSL_KEY_PASSWORD);
      config.put("kafka.producer.ssl.truststore.password", TRUSTSTORE_PASSWORD);
      config.put(
          "bridge.servicebus.connection-string",
          serviceBus
              .connectionString()
              .replace("SharedAccessKey=v", "SharedAccessKey=" + SERVICEBUS_KEY));
      config.put("bridge.servicebus.local-mode", "true");
      config.put("bridge.servicebus.entities", "billing");
      config.put("bridge.servicebus.entity.billing.queue", "billing");

      try (CapturedLogs captured = CapturedLogs.attach();
          BridgeApplication bridge = BridgeApplication.start(BridgeConfigLoader.fromMap(config))) {
        String good = "Bearer " + station1.token();
        String path = "/api/v1/devices/station-1/events";
        await()
            .atMost(Duration.ofSeconds(30))
            .until(() -> send(bridge, "GET", "/health/ready", null, null).statusCode() == 200);
        List<HttpResponse<String>> responses = new ArrayList<>();
        responses.add(send(bridge, "POST", path, event("e-1"), good));
        assertThat(responses.get(0).statusCode()).isEqualTo(202);
        char last = station1.token().charAt(station1.token().length() - 1);
        String[] refused = {
          "Bearer " + station2.token(),
          "Bearer " + station1.token().substring(0, 60) + (last == 'A' ? 'B' : 'A'),
          good + " extra",
          "Basic " + station1.token(),
          station1.token(),
          "Bearer " + station1.token() + "=x"
        };
        for (String authorization : refused) {
          responses.add(send(bridge, "POST", path, event("e-refused"), authorization));
        }
        responses.add(send(bridge, "POST", path, "{\"broken\": ", good));
        responses.add(send(bridge, "GET", path, null, good));
        responses.add(send(bridge, "POST", "/nope", event("e-2"), good));
        responses.add(send(bridge, "POST", "/api/v1/devices/station-1/events:batch", "[]", good));
        responses.add(send(bridge, "GET", "/health/ready", null, null));
        // A replacement keystore under a password the bridge does not have: refused and logged.
        TestCertificates.rsa().writePkcs12(keystore, OTHER_KEYSTORE_PASSWORD);
        await()
            .atMost(Duration.ofSeconds(30))
            .until(
                () ->
                    send(bridge, "GET", "/metrics", null, null)
                        .body()
                        .contains(
                            "turnstile_bridge_http_tls_reloads_total{outcome=\"failed\"} 1.0"));
        responses.add(send(bridge, "GET", "/metrics", null, null));
        assertThat(responses.stream().map(HttpResponse::statusCode))
            .as("the requests were answered, some refused")
            .contains(202, 401, 403, 400, 405, 404, 200);
        for (HttpResponse<String> response : responses) {
          answers
              .append(response.statusCode())
              .append(' ')
              .append(response.headers().map())
              .append('\n')
              .append(response.body())
              .append('\n');
        }
        logs = captured.text();
      }
    }

    assertThat(logs)
        .as("the capture sees the bridge's own lines and the Kafka clients' config dumps")
        .contains("starting the bridge with")
        .contains("device authentication on")
        .contains("sasl.jaas.config = [hidden]")
        .contains("bridge.http.tls.keystore-password=[hidden]")
        .contains("HTTPS key material not reloaded");
    assertThat(answers)
        .contains("turnstile_bridge_device_events_total")
        .contains("turnstile_bridge_http_tls_certificate_expiry_seconds")
        .contains("turnstile_bridge_http_tls_reloads_total{outcome=\"applied\"} 0.0");
    secrets.forEach(
        (what, value) -> {
          assertThat(logs).as(what + " in the logs").doesNotContain(value);
          assertThat(answers.toString())
              .as(what + " in an answer or /metrics")
              .doesNotContain(value);
        });
  }

  /** A client that trusts the bridge's test certificate only (and checks its IP address). */
  private static HttpClient trusting(X509Certificate certificate) throws Exception {
    KeyStore trusted = KeyStore.getInstance("PKCS12");
    trusted.load(null, null);
    trusted.setCertificateEntry("bridge", certificate);
    TrustManagerFactory trust =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    trust.init(trusted);
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(null, trust.getTrustManagers(), null);
    return HttpClient.newBuilder().sslContext(context).build();
  }

  private HttpResponse<String> send(
      BridgeApplication bridge, String method, String path, String body, String authorization)
      throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + bridge.httpPort() + path))
            .timeout(Duration.ofSeconds(20))
            .header("Content-Type", "application/json")
            .method(method, body == null ? BodyPublishers.noBody() : BodyPublishers.ofString(body));
    if (authorization != null) {
      request.header("Authorization", authorization);
    }
    return https.send(request.build(), BodyHandlers.ofString());
  }

  private static String event(String eventId) {
    return "{\"eventId\":\""
        + eventId
        + "\",\"type\":\"Started\",\"occurredAt\":\"2014-11-18T15:40:26Z\"}";
  }

  /**
   * Every log event of the JVM while open, formatted with its arguments, MDC and stack trace;
   * Turnstile's loggers at DEBUG, the Kafka clients' and the Azure SDK's at INFO.
   */
  private static final class CapturedLogs extends AppenderBase<ILoggingEvent>
      implements AutoCloseable {

    private static final Map<String, Level> LEVELS =
        Map.of(
            "dev.turnstile", Level.DEBUG,
            "io.vertx", Level.DEBUG,
            "org.apache.kafka.clients", Level.INFO,
            "org.apache.kafka.common", Level.INFO,
            "com.azure", Level.INFO);

    private final ConcurrentLinkedQueue<String> lines = new ConcurrentLinkedQueue<>();
    private final Map<String, Level> before = new HashMap<>();

    static CapturedLogs attach() {
      CapturedLogs capture = new CapturedLogs();
      LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
      capture.setContext(context);
      capture.start();
      LEVELS.forEach(
          (name, level) -> {
            Logger logger = context.getLogger(name);
            capture.before.put(name, logger.getLevel());
            logger.setLevel(level);
          });
      context.getLogger(Logger.ROOT_LOGGER_NAME).addAppender(capture);
      return capture;
    }

    @Override
    protected void append(ILoggingEvent event) {
      StringBuilder line =
          new StringBuilder(event.getLoggerName())
              .append(' ')
              .append(event.getFormattedMessage())
              .append(' ')
              .append(event.getMDCPropertyMap());
      if (event.getThrowableProxy() != null) {
        line.append('\n').append(ThrowableProxyUtil.asString(event.getThrowableProxy()));
      }
      lines.add(line.toString());
    }

    String text() {
      return String.join("\n", lines);
    }

    @Override
    public void close() {
      LoggerContext context = (LoggerContext) getContext();
      context.getLogger(Logger.ROOT_LOGGER_NAME).detachAppender(this);
      before.forEach((name, level) -> context.getLogger(name).setLevel(level));
      stop();
    }
  }
}
