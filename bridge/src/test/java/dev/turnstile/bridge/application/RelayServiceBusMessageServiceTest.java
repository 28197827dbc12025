package dev.turnstile.bridge.application;

import static org.assertj.core.api.Assertions.assertThat;

import dev.turnstile.bridge.port.in.RelayServiceBusMessageUseCase.Abandon;
import dev.turnstile.bridge.port.in.RelayServiceBusMessageUseCase.AbandonReason;
import dev.turnstile.bridge.port.in.RelayServiceBusMessageUseCase.Complete;
import dev.turnstile.bridge.port.in.RelayServiceBusMessageUseCase.DeadLetter;
import dev.turnstile.bridge.port.in.RelayServiceBusMessageUseCase.ReceivedMessage;
import dev.turnstile.bridge.port.in.RelayServiceBusMessageUseCase.Settlement;
import dev.turnstile.bridge.port.out.BodyValidator;
import dev.turnstile.bridge.port.out.InMemoryPublisher;
import dev.turnstile.bridge.port.out.InMemoryPublisher.Write;
import dev.turnstile.bridge.port.out.PublishException.Reason;
import io.cloudevents.CloudEvent;
import java.nio.charset.StandardCharsets;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RelayServiceBusMessageServiceTest {

  private static final OffsetDateTime ENQUEUED = OffsetDateTime.parse("2026-01-02T03:04:05Z");

  private final InMemoryPublisher publisher = InMemoryPublisher.acknowledging();

  @Test
  void ackedWriteCompletesWithTheCloudEventAndPropertyHeaders() {
    Settlement settlement =
        relay(route(KeyRule.MESSAGE_ID, true), message("m-1", null, Map.of("mergeKey", "s-9")));

    assertThat(settlement).isEqualTo(new Complete("m-1", "raw", 0, 0));
    Write write = publisher.published.get(0);
    assertThat(write.key()).isEqualTo("m-1");
    assertThat(write.event().getId()).isEqualTo("m-1");
    assertThat(write.event().getSource().toString()).isEqualTo("/servicebus/ns/billing");
    assertThat(write.event().getTime()).isEqualTo(ENQUEUED);
    assertThat(write.event().getExtension("sbsequencenumber")).isEqualTo(42L);
    assertThat(write.event().getExtension("sbdeliverycount")).isEqualTo(1L);
    assertThat(write.event().getExtension("sbentity")).isEqualTo("billing");
    assertThat(write.event().getData().toBytes()).isEqualTo(body("{\"a\":{\"b\":\"x\"}}"));
    assertThat(write.headers()).containsExactly(Map.entry("sb-prop-mergeKey", "s-9"));
  }

  @Test
  void withoutMessageIdTheEventIdIsEntityPathAndSequenceNumber() {
    relay(route(KeyRule.MESSAGE_ID, true), message(null, null, Map.of()));
    assertThat(publisher.published.get(0).event().getId()).isEqualTo("billing/42");
    assertThat(publisher.published.get(0).key()).isEqualTo("billing/42");
  }

  @Test
  void keysFollowTheEntityRule() {
    relay(route(KeyRule.parse("session-id"), true), message("m", "sess-1", Map.of()));
    relay(route(KeyRule.parse("property:account"), true), message("m", null, Map.of("account", 7)));
    relay(route(KeyRule.parse("pointer:/a/b"), true), message("m", null, Map.of()));
    assertThat(publisher.published).extracting(Write::key).containsExactly("sess-1", "7", "x");
  }

  @Test
  void missingRequiredKeyIsDeadLetteredUnwritten() {
    Settlement settlement =
        relay(route(KeyRule.parse("session-id"), true), message("m", null, Map.of()));
    assertThat(settlement).isInstanceOf(DeadLetter.class);
    assertThat(((DeadLetter) settlement).reason()).isEqualTo("MissingKey");
    assertThat(publisher.published).isEmpty();
  }

  @Test
  void missingOptionalKeyFallsBackToTheEventId() {
    relay(route(KeyRule.parse("session-id"), false), message("m-5", null, Map.of()));
    assertThat(publisher.published.get(0).key()).isEqualTo("m-5");
  }

  @Test
  void invalidBodyIsDeadLetteredWithTheViolation() {
    var route =
        new RelayServiceBusMessageService.Route(
            "raw", KeyRule.MESSAGE_ID, true, body -> Optional.of("/amount: must be a number"));
    Settlement settlement = relay(route, message("m", null, Map.of()));
    assertThat(settlement)
        .isEqualTo(new DeadLetter("SchemaViolation", "/amount: must be a number"));
    assertThat(publisher.published).isEmpty();
  }

  @Test
  void publishFailuresMapToAbandonOrDeadLetter() {
    var route = route(KeyRule.MESSAGE_ID, true);
    publisher.failWith(Reason.SATURATED);
    assertThat(relay(route, message("m", null, Map.of())))
        .isInstanceOfSatisfying(
            Abandon.class, a -> assertThat(a.reason()).isEqualTo(AbandonReason.SATURATED));
    publisher.failWith(Reason.UNAVAILABLE);
    assertThat(relay(route, message("m", null, Map.of())))
        .isInstanceOfSatisfying(
            Abandon.class, a -> assertThat(a.reason()).isEqualTo(AbandonReason.UNAVAILABLE));
    publisher.failWith(Reason.REJECTED);
    assertThat(relay(route, message("m", null, Map.of())))
        .isInstanceOfSatisfying(
            DeadLetter.class, d -> assertThat(d.reason()).isEqualTo("KafkaRejected"));
  }

  /** Issue 8, cases 4 and 5: the same bytes got 400 on HTTP and were relayed from Service Bus. */
  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          application/json                | {"dollars":1.00}\\n{"dollars":9.99} | MalformedJson     | unexpected content after the JSON value
          Application/JSON; charset=utf-8 | {"dollars":1.00,"dollars":9.99}    | MalformedJson     | duplicate key "dollars"
          application/vnd.billing+json    | {"a":"\\uD800"}                    | MalformedJson     | surrogate
          application/json                | DEEP                               | JsonLimitExceeded | maxDepth
          application/json                | {"n":1e1001}                       | JsonLimitExceeded | maxExponent at "/n"
          """)
  void jsonBodiesAreReadStrictlyAndDeadLetteredWithTheReason(
      String contentType, String body, String reason, String description) {
    String text = body.replace("\\n", "\n").replace("DEEP", "[".repeat(100) + "]".repeat(100));

    Settlement settlement =
        relay(route(KeyRule.MESSAGE_ID, true), message(contentType, Map.of(), text));

    assertThat(settlement)
        .isInstanceOfSatisfying(
            DeadLetter.class,
            d -> {
              assertThat(d.reason()).isEqualTo(reason);
              assertThat(d.description()).contains(description);
            });
    assertThat(publisher.published).isEmpty();
  }

  @Test
  void bodiesOfOtherContentTypesAreRelayedUnchanged() {
    byte[] notJson = body("{\"dollars\":1.00,\"dollars\":9.99} trailing");
    relay(route(KeyRule.MESSAGE_ID, true), message("text/plain", Map.of(), notJson));
    relay(route(KeyRule.MESSAGE_ID, true), message(null, Map.of(), notJson));
    assertThat(publisher.published)
        .extracting(w -> w.event().getData().toBytes())
        .containsExactly(notJson, notJson);
  }

  @Test
  void anEntityWithASchemaReadsEveryBodyStrictlyWhateverItsContentType() {
    var route =
        new RelayServiceBusMessageService.Route(
            "raw", KeyRule.MESSAGE_ID, true, json -> Optional.empty());
    Settlement settlement =
        relay(route, message("text/plain", Map.of(), body("{\"a\":1,\"a\":2}")));
    assertThat(settlement)
        .isInstanceOfSatisfying(
            DeadLetter.class, d -> assertThat(d.reason()).isEqualTo("MalformedJson"));
  }

  /** Issue 8, case 7: Event Grid delivers structured CloudEvents to Service Bus. */
  @Test
  void aStructuredCloudEventIsWrittenInBinaryModeWithItsOwnAttributes() {
    String event =
        "{\"specversion\":\"1.0\",\"id\":\"evt-1\",\"source\":\"/billing/eu\","
            + "\"type\":\"com.example.billing.v1\",\"time\":\"2026-01-02T03:00:00+01:00\","
            + "\"subject\":\"s-9\",\"datacontenttype\":\"application/json\","
            + "\"region\":\"eu\",\"data\":{\"dollars\":1.00,\"kwh\":1e400}}";

    Settlement settlement =
        relay(
            route(KeyRule.parse("property:mergeKey"), true),
            message(
                "application/cloudevents+json; charset=utf-8",
                Map.of("mergeKey", "s-9"),
                body(event)));

    assertThat(settlement).isInstanceOf(Complete.class);
    CloudEvent written = publisher.published.get(0).event();
    assertThat(written.getId()).isEqualTo("evt-1");
    assertThat(written.getSource().toString()).isEqualTo("/billing/eu");
    assertThat(written.getType()).isEqualTo("com.example.billing.v1");
    assertThat(written.getTime()).isEqualTo(OffsetDateTime.parse("2026-01-02T03:00:00+01:00"));
    assertThat(written.getSubject()).isEqualTo("s-9");
    assertThat(written.getDataContentType()).isEqualTo("application/json");
    assertThat(written.getExtension("region")).isEqualTo("eu");
    assertThat(written.getExtension("sbsequencenumber")).isEqualTo(42L);
    assertThat(written.getExtension("sbentity")).isEqualTo("billing");
    assertThat(new String(written.getData().toBytes(), StandardCharsets.UTF_8))
        .isEqualTo("{\"dollars\":1.00,\"kwh\":1E+400}");
    assertThat(publisher.published.get(0).headers())
        .containsExactly(Map.entry("sb-prop-mergeKey", "s-9"));
    assertThat(publisher.published.get(0).key()).isEqualTo("s-9");
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          no id                 | {"specversion":"1.0","source":"/s","type":"t"}                         | InvalidCloudEvent
          empty id              | {"specversion":"1.0","id":"","source":"/s","type":"t"}                 | InvalidCloudEvent
          spec 0.3              | {"specversion":"0.3","id":"1","source":"/s","type":"t"}                | InvalidCloudEvent
          bad time              | {"specversion":"1.0","id":"1","source":"/s","type":"t","time":"soon"}  | InvalidCloudEvent
          reserved extension    | {"specversion":"1.0","id":"1","source":"/s","type":"t","sbentity":"x"} | InvalidCloudEvent
          upper-case extension  | {"specversion":"1.0","id":"1","source":"/s","type":"t","Region":"x"}   | InvalidCloudEvent
          an array              | [1]                                                                    | InvalidCloudEvent
          duplicate id          | {"specversion":"1.0","id":"1","id":"2","source":"/s","type":"t"}       | MalformedJson
          json data not json    | {"specversion":"1.0","id":"1","source":"/s","type":"t","datacontenttype":"application/json","data_base64":"e30gZQ=="} | MalformedJson
          """)
  void anInvalidStructuredCloudEventIsDeadLetteredWithTheReason(
      String what, String event, String reason) {
    Settlement settlement =
        relay(
            route(KeyRule.MESSAGE_ID, true),
            message("application/cloudevents+json", Map.of(), body(event)));
    assertThat(settlement)
        .as(what)
        .isInstanceOfSatisfying(DeadLetter.class, d -> assertThat(d.reason()).isEqualTo(reason));
    assertThat(publisher.published).isEmpty();
  }

  @Test
  void batchedAndOtherCloudEventsFormatsAreDeadLettered() {
    for (String contentType :
        List.of("application/cloudevents-batch+json", "application/cloudevents+avro")) {
      assertThat(relay(route(KeyRule.MESSAGE_ID, true), message(contentType, Map.of(), "[]")))
          .isInstanceOfSatisfying(
              DeadLetter.class,
              d -> assertThat(d.reason()).isEqualTo("UnsupportedCloudEventsFormat"));
    }
  }

  @Test
  void theAmqpBindingsBinaryModeGivesTheEventsOwnAttributes() {
    Map<String, Object> properties = new java.util.LinkedHashMap<>();
    properties.put("cloudEvents:specversion", "1.0");
    properties.put("cloudEvents:id", "amqp-1");
    properties.put("cloudEvents:source", "/meters/7");
    properties.put("cloudEvents_type", "com.example.reading.v1");
    properties.put("cloudEvents:time", OffsetDateTime.parse("2026-01-02T03:04:05Z"));
    properties.put("cloudEvents:attempt", 3);
    properties.put("mergeKey", "s-1");

    relay(
        route(KeyRule.MESSAGE_ID, true), message("application/json", properties, "{\"kwh\":7.50}"));

    CloudEvent written = publisher.published.get(0).event();
    assertThat(written.getId()).isEqualTo("amqp-1");
    assertThat(written.getSource().toString()).isEqualTo("/meters/7");
    assertThat(written.getType()).isEqualTo("com.example.reading.v1");
    assertThat(written.getTime()).isEqualTo(OffsetDateTime.parse("2026-01-02T03:04:05Z"));
    assertThat(written.getExtension("attempt")).isEqualTo(3);
    assertThat(written.getDataContentType()).isEqualTo("application/json");
    assertThat(written.getData().toBytes()).isEqualTo(body("{\"kwh\":7.50}"));
    assertThat(publisher.published.get(0).headers())
        .containsExactly(Map.entry("sb-prop-mergeKey", "s-1"));
  }

  @Test
  void aBinaryModeEventMissingAnAttributeOrSpecVersion10IsDeadLettered() {
    Map<String, Object> noType =
        Map.of("cloudEvents:specversion", "1.0", "cloudEvents:id", "1", "cloudEvents:source", "/s");
    Map<String, Object> twice =
        Map.of(
            "cloudEvents:specversion", "1.0",
            "cloudEvents:id", "1",
            "cloudEvents_id", "2",
            "cloudEvents:source", "/s",
            "cloudEvents:type", "t");
    for (Map<String, Object> properties : List.of(noType, twice)) {
      assertThat(relay(route(KeyRule.MESSAGE_ID, true), message(null, properties, "x")))
          .isInstanceOfSatisfying(
              DeadLetter.class, d -> assertThat(d.reason()).isEqualTo("InvalidCloudEvent"));
    }
  }

  private Settlement relay(RelayServiceBusMessageService.Route route, ReceivedMessage message) {
    return new RelayServiceBusMessageService(publisher, "ns", Map.of("billing", route))
        .relay(message)
        .toCompletableFuture()
        .join();
  }

  private static RelayServiceBusMessageService.Route route(KeyRule key, boolean required) {
    return new RelayServiceBusMessageService.Route("raw", key, required, BodyValidator.NONE);
  }

  private static ReceivedMessage message(
      String messageId, String sessionId, Map<String, Object> properties) {
    return new ReceivedMessage(
        "billing",
        "billing",
        messageId,
        42,
        ENQUEUED,
        0,
        sessionId,
        null,
        null,
        null,
        "application/json",
        properties,
        body("{\"a\":{\"b\":\"x\"}}"));
  }

  private static ReceivedMessage message(
      String contentType, Map<String, Object> properties, String body) {
    return message(contentType, properties, body(body));
  }

  private static ReceivedMessage message(
      String contentType, Map<String, Object> properties, byte[] body) {
    return new ReceivedMessage(
        "billing",
        "billing",
        "m-1",
        42,
        ENQUEUED,
        0,
        null,
        null,
        null,
        null,
        contentType,
        properties,
        body);
  }

  private static byte[] body(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
