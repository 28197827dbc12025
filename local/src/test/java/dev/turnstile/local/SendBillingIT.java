package dev.turnstile.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.azure.messaging.servicebus.ServiceBusMessage;
import dev.turnstile.schemas.Json;
import dev.turnstile.schemas.SettledChargingSession;
import dev.turnstile.schemas.TopicCatalogue;
import java.math.BigDecimal;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * The hand-run example of docs/http-api.md, "A session end to end": a station's {@code Started} and
 * {@code Finished} over HTTP with timestamps from the current time, then {@code ./turnstile
 * send-billing} with the connection string {@code up} prints; the settled session appears on {@code
 * post-merge.v1}, and the topology's queries answer what its topics say.
 */
class SendBillingIT {

  static LocalStack stack;

  @BeforeAll
  static void start() throws InterruptedException {
    stack = LocalStack.start(0, Map.of());
  }

  @AfterAll
  static void stop() {
    stack.close();
  }

  @Test
  void aSessionAndItsBillingMessageGiveASettledSession() throws Exception {
    Instant finished = Instant.now().truncatedTo(ChronoUnit.SECONDS).minus(Duration.ofMinutes(5));
    Instant started = finished.minus(Duration.ofMinutes(90));
    assertThat(post("s-1", "Started", started)).isEqualTo(202);
    assertThat(post("f-1", "Finished", finished)).isEqualTo(202);

    int exit =
        new CommandLine(new TurnstileCli())
            .execute(
                "send-billing",
                "--connection-string",
                stack.serviceBus().connectionString(),
                "--session-id",
                "readme-42",
                "--user-id",
                "driver-7",
                "--kwh",
                "7.5",
                "--dollars",
                "1.25");
    assertThat(exit).isZero();

    List<ConsumerRecord<String, byte[]>> settled =
        TopicReader.readUntil(
            stack.bootstrapServers(),
            TopicCatalogue.POST_MERGE.baseName(),
            read -> read.stream().anyMatch(r -> "readme-42".equals(r.key())),
            Duration.ofSeconds(60));
    SettledChargingSession session =
        Json.mapper()
            .readValue(
                settled.stream()
                    .filter(r -> "readme-42".equals(r.key()))
                    .findFirst()
                    .orElseThrow()
                    .value(),
                SettledChargingSession.class);
    assertThat(session.station()).isEqualTo("station-1");
    assertThat(session.durationMillis()).isEqualTo(Duration.ofMinutes(90).toMillis());
    assertThat(session.userId().asText()).isEqualTo("driver-7");
    assertThat(session.kwhTotal().decimalValue()).isEqualByComparingTo("7.5");
    assertThat(session.dollars().decimalValue()).isEqualByComparingTo("1.25");

    // A correction carries an id of its own and publishes the session again with its amount.
    assertThat(
            new CommandLine(new TurnstileCli())
                .execute(
                    "send-billing",
                    "--connection-string",
                    stack.serviceBus().connectionString(),
                    "--session-id",
                    "readme-42",
                    "--message-id",
                    "billing-readme-42-correction",
                    "--user-id",
                    "driver-7",
                    "--kwh",
                    "7.5",
                    "--dollars",
                    "2.00"))
        .isZero();
    java.util.function.Predicate<ConsumerRecord<String, byte[]>> corrected =
        r ->
            "readme-42".equals(r.key()) && dollars(r).compareTo(new java.math.BigDecimal("2")) == 0;
    assertThat(
            TopicReader.readUntil(
                stack.bootstrapServers(),
                TopicCatalogue.POST_MERGE.baseName(),
                read -> read.stream().anyMatch(corrected),
                Duration.ofSeconds(60)))
        .anySatisfy(r -> assertThat(corrected.test(r)).isTrue());

    // That example's two queries: the topology's state says what its topics say.
    List<ConsumerRecord<String, byte[]>> results =
        TopicReader.readUntil(
            stack.bootstrapServers(),
            TopicCatalogue.MERGE_RESULTS.baseName(),
            read -> read.stream().filter(r -> "readme-42".equals(r.key())).count() >= 3,
            Duration.ofSeconds(60));
    com.fasterxml.jackson.databind.JsonNode last =
        Json.mapper()
            .readTree(
                results.stream()
                    .filter(r -> "readme-42".equals(r.key()))
                    .reduce((a, b) -> b)
                    .orElseThrow()
                    .value());
    com.fasterxml.jackson.databind.JsonNode merged =
        Json.mapper().readTree(query("/api/v1/merge/readme-42"));
    assertThat(merged.get("mergeResultId")).isEqualTo(last.get("mergeResultId"));
    assertThat(merged.get("document")).isEqualTo(last.get("document"));
    com.fasterxml.jackson.databind.JsonNode sessions =
        Json.mapper().readTree(query("/api/v1/devices/station-1/sessions"));
    assertThat(sessions.get("open")).isEmpty();
    assertThat(sessions.get("recentlyEnded").get(0).get("sessionRef").asText())
        .isEqualTo("readme-42");
    assertThat(sessions.get("recentlyEnded").get(0).get("outcome").asText()).isEqualTo("Closed");
  }

  /** GET on the topology's HTTP server; fails unless 200. */
  private static String query(String path) throws Exception {
    HttpResponse<String> response =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + stack.topologyHealthPort() + path))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).as(path + ": " + response.body()).isEqualTo(200);
    return response.body();
  }

  private static java.math.BigDecimal dollars(ConsumerRecord<String, byte[]> record) {
    try {
      return Json.mapper()
          .readValue(record.value(), SettledChargingSession.class)
          .dollars()
          .decimalValue();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  @Test
  void aBillingBodyThatBreaksItsSchemaIsDeadLettered() {
    ServiceBusMessage negative =
        BillingPublisher.message("bad-1", "driver-7", new BigDecimal("-1"), BigDecimal.ONE);
    BillingPublisher.send(
        stack.serviceBus().connectionString(), LocalStack.BILLING_QUEUE, negative);

    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () ->
                assertThat(stack.serviceBus().deadLetters(LocalStack.BILLING_QUEUE))
                    .singleElement()
                    .satisfies(m -> assertThat(m.deadLetterReason()).isEqualTo("SchemaViolation")));
  }

  @Test
  void sendBillingRefusesANegativeAmountBeforeSending() {
    int exit =
        new CommandLine(new TurnstileCli())
            .execute(
                "send-billing",
                "--connection-string",
                stack.serviceBus().connectionString(),
                "--session-id",
                "x",
                "--user-id",
                "y",
                "--kwh",
                "-2",
                "--dollars",
                "0");
    assertThat(exit).isEqualTo(2);
  }

  private static int post(String eventId, String type, Instant occurredAt) throws Exception {
    String body =
        """
        {"eventId":"%s","type":"%s","occurredAt":"%s","sessionRef":"readme-42"}
        """
            .formatted(eventId, type, occurredAt);
    HttpResponse<String> response =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(
                        URI.create(
                            "http://127.0.0.1:"
                                + stack.httpPort()
                                + "/api/v1/devices/station-1/events"))
                    .header("Content-Type", "application/json")
                    .header("Authorization", "Bearer " + stack.deviceToken())
                    .POST(HttpRequest.BodyPublishers.ofString(body))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    return response.statusCode();
  }
}
