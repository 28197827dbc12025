package dev.turnstile.bridge.application;

import static org.assertj.core.api.Assertions.assertThat;

import dev.turnstile.bridge.config.KeyRule;
import dev.turnstile.bridge.port.in.RelayServiceBusMessageUseCase.Abandon;
import dev.turnstile.bridge.port.in.RelayServiceBusMessageUseCase.Complete;
import dev.turnstile.bridge.port.in.RelayServiceBusMessageUseCase.DeadLetter;
import dev.turnstile.bridge.port.in.RelayServiceBusMessageUseCase.ReceivedMessage;
import dev.turnstile.bridge.port.in.RelayServiceBusMessageUseCase.Settlement;
import dev.turnstile.bridge.port.out.PublishEventPort;
import dev.turnstile.bridge.port.out.PublishException;
import dev.turnstile.bridge.port.out.PublishException.Reason;
import io.cloudevents.CloudEvent;
import java.nio.charset.StandardCharsets;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.junit.jupiter.api.Test;

class RelayServiceBusMessageServiceTest {

  private static final OffsetDateTime ENQUEUED = OffsetDateTime.parse("2026-01-02T03:04:05Z");

  private final FakePublisher publisher = new FakePublisher();

  @Test
  void ackedWriteCompletesWithTheCloudEventAndPropertyHeaders() {
    Settlement settlement =
        relay(route(KeyRule.MESSAGE_ID, true), message("m-1", null, Map.of("mergeKey", "s-9")));

    assertThat(settlement).isEqualTo(new Complete("m-1", "raw", 0, 0));
    Write write = publisher.writes.get(0);
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
    assertThat(publisher.writes.get(0).event().getId()).isEqualTo("billing/42");
    assertThat(publisher.writes.get(0).key()).isEqualTo("billing/42");
  }

  @Test
  void keysFollowTheEntityRule() {
    relay(route(KeyRule.parse("session-id"), true), message("m", "sess-1", Map.of()));
    relay(route(KeyRule.parse("property:account"), true), message("m", null, Map.of("account", 7)));
    relay(route(KeyRule.parse("pointer:/a/b"), true), message("m", null, Map.of()));
    assertThat(publisher.writes).extracting(Write::key).containsExactly("sess-1", "7", "x");
  }

  @Test
  void missingRequiredKeyIsDeadLetteredUnwritten() {
    Settlement settlement =
        relay(route(KeyRule.parse("session-id"), true), message("m", null, Map.of()));
    assertThat(settlement).isInstanceOf(DeadLetter.class);
    assertThat(((DeadLetter) settlement).reason()).isEqualTo("MissingKey");
    assertThat(publisher.writes).isEmpty();
  }

  @Test
  void missingOptionalKeyFallsBackToTheEventId() {
    relay(route(KeyRule.parse("session-id"), false), message("m-5", null, Map.of()));
    assertThat(publisher.writes.get(0).key()).isEqualTo("m-5");
  }

  @Test
  void invalidBodyIsDeadLetteredWithTheViolation() {
    var route =
        new RelayServiceBusMessageService.Route(
            "raw", KeyRule.MESSAGE_ID, true, body -> Optional.of("/amount: must be a number"));
    Settlement settlement = relay(route, message("m", null, Map.of()));
    assertThat(settlement)
        .isEqualTo(new DeadLetter("SchemaViolation", "/amount: must be a number"));
    assertThat(publisher.writes).isEmpty();
  }

  @Test
  void publishFailuresMapToAbandonOrDeadLetter() {
    var route = route(KeyRule.MESSAGE_ID, true);
    publisher.failWith = Reason.SATURATED;
    assertThat(relay(route, message("m", null, Map.of())))
        .isInstanceOfSatisfying(Abandon.class, a -> assertThat(a.reason()).isEqualTo("saturated"));
    publisher.failWith = Reason.UNAVAILABLE;
    assertThat(relay(route, message("m", null, Map.of())))
        .isInstanceOfSatisfying(
            Abandon.class, a -> assertThat(a.reason()).isEqualTo("unavailable"));
    publisher.failWith = Reason.REJECTED;
    assertThat(relay(route, message("m", null, Map.of())))
        .isInstanceOfSatisfying(
            DeadLetter.class, d -> assertThat(d.reason()).isEqualTo("KafkaRejected"));
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

  private static byte[] body(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  private record Write(String topic, String key, CloudEvent event, Map<String, String> headers) {}

  /** Our port in memory: acknowledges at once, or fails with the set reason. */
  private static final class FakePublisher implements PublishEventPort {
    final List<Write> writes = new ArrayList<>();
    Reason failWith;

    @Override
    public CompletionStage<PublishedEvent> publish(
        String topic, String key, CloudEvent event, Map<String, String> headers) {
      if (failWith != null) {
        return CompletableFuture.failedFuture(new PublishException(failWith, "fake", null));
      }
      writes.add(new Write(topic, key, event, headers));
      return CompletableFuture.completedFuture(new PublishedEvent(topic, 0, 0));
    }
  }
}
