package dev.turnstile.bridge.application;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.turnstile.bridge.metrics.BridgeMetrics;
import dev.turnstile.bridge.port.in.AcceptDeviceEventUseCase.AcceptDeviceEventCommand;
import dev.turnstile.bridge.port.in.AcceptDeviceEventUseCase.Accepted;
import dev.turnstile.bridge.port.in.AcceptDeviceEventUseCase.Duplicate;
import dev.turnstile.bridge.port.in.AcceptDeviceEventUseCase.Invalid;
import dev.turnstile.bridge.port.in.AcceptDeviceEventUseCase.InvalidDeviceEventException;
import dev.turnstile.bridge.port.in.AcceptDeviceEventUseCase.NotWritten;
import dev.turnstile.bridge.port.in.AcceptDeviceEventUseCase.Outcome;
import dev.turnstile.bridge.port.out.InMemoryPublisher;
import dev.turnstile.bridge.port.out.PublishException;
import dev.turnstile.bridge.port.out.PublishException.Reason;
import dev.turnstile.schemas.DeviceEvent;
import dev.turnstile.schemas.DeviceEventType;
import dev.turnstile.schemas.Json;
import dev.turnstile.schemas.OccurredAtWindow;
import dev.turnstile.schemas.Violation;
import io.cloudevents.CloudEvent;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.junit.jupiter.api.Test;

class AcceptDeviceEventServiceTest {

  private static final Instant NOW = Instant.parse("2026-01-02T03:04:05Z");

  private final InMemoryPublisher publisher = InMemoryPublisher.holding();
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

  private AcceptDeviceEventService service(long cacheSize) {
    return new AcceptDeviceEventService(
        publisher,
        "device-events.raw.v1",
        Clock.fixed(NOW, ZoneOffset.UTC),
        new BridgeMetrics(registry),
        cacheSize,
        Duration.ofMinutes(1),
        OccurredAtWindow.DEFAULT);
  }

  private static AcceptDeviceEventCommand command(String eventId, String occurredAt) {
    return new AcceptDeviceEventCommand(
        "station-7",
        eventId,
        DeviceEventType.Started,
        OffsetDateTime.parse(occurredAt),
        "s-1",
        Json.mapper().createObjectNode());
  }

  private static Outcome await(CompletionStage<Outcome> stage) throws Exception {
    return stage.toCompletableFuture().get();
  }

  @Test
  void writesTheCloudEventAndAnswersAcceptedAfterTheAck() throws Exception {
    CompletableFuture<Outcome> outcome =
        service(10).accept(command("e-1", "2014-11-18T15:40:26+01:00")).toCompletableFuture();

    assertThat(outcome).isNotDone();
    publisher.ackAll();
    assertThat(await(outcome)).isEqualTo(new Accepted("e-1", "device-events.raw.v1", 0, 0));

    InMemoryPublisher.Write written = publisher.published.get(0);
    assertThat(written.key()).isEqualTo("station-7");
    CloudEvent event = written.event();
    assertThat(event.getId()).isEqualTo("e-1");
    assertThat(event.getSource().toString()).isEqualTo("/devices/station-7");
    assertThat(event.getType()).isEqualTo("dev.turnstile.device.started.v1");
    assertThat(event.getSubject()).isEqualTo("station-7");
    assertThat(event.getTime()).isEqualTo(OffsetDateTime.parse("2014-11-18T15:40:26+01:00"));
    assertThat(event.getDataContentType()).isEqualTo("application/json");
    assertThat(event.getDataSchema().toString())
        .isEqualTo("https://turnstile.dev/schemas/device-event.v1.schema.json");
    DeviceEvent value = Json.mapper().readValue(event.getData().toBytes(), DeviceEvent.class);
    assertThat(value.type()).isEqualTo(DeviceEventType.Started);
    assertThat(value.occurredAt().getOffset()).isEqualTo(ZoneOffset.ofHours(1));
    assertThat(value.receivedAt()).isEqualTo(NOW);
    assertThat(value.sessionRef()).isEqualTo("s-1");
    assertThat(counted("accepted")).isEqualTo(1);
  }

  @Test
  void aRepeatAfterTheAckIsADuplicateWithoutASecondWrite() throws Exception {
    AcceptDeviceEventService service = service(10);
    CompletableFuture<Outcome> first =
        service.accept(command("e-1", "2014-11-18T15:40:26Z")).toCompletableFuture();
    publisher.ackAll();
    first.get();

    Outcome repeat = await(service.accept(command("e-1", "2014-11-18T15:40:26Z")));

    assertThat(repeat).isEqualTo(new Duplicate("e-1", false));
    assertThat(publisher.published).hasSize(1);
    assertThat(counted("duplicate")).isEqualTo(1);
  }

  @Test
  void aRepeatWhileTheFirstIsInFlightIsWrittenAgain() {
    AcceptDeviceEventService service = service(10);
    service.accept(command("e-1", "2014-11-18T15:40:26Z"));
    service.accept(command("e-1", "2014-11-18T15:40:26Z"));

    assertThat(publisher.published).hasSize(2);
  }

  @Test
  void aFailedWriteIsNotRemembered() throws Exception {
    AcceptDeviceEventService service = service(10);
    CompletableFuture<Outcome> first =
        service.accept(command("e-1", "2014-11-18T15:40:26Z")).toCompletableFuture();
    publisher.failAll(Reason.UNAVAILABLE);
    assertThatThrownBy(first::get).hasCauseInstanceOf(PublishException.class);

    CompletableFuture<Outcome> retry =
        service.accept(command("e-1", "2014-11-18T15:40:26Z")).toCompletableFuture();
    publisher.ackAll();

    assertThat(retry.get()).isInstanceOf(Accepted.class);
    assertThat(counted("unavailable")).isEqualTo(1);
  }

  @Test
  void aZeroSizeCacheWritesEveryRepeat() throws Exception {
    AcceptDeviceEventService service = service(0);
    CompletableFuture<Outcome> first =
        service.accept(command("e-1", "2014-11-18T15:40:26Z")).toCompletableFuture();
    publisher.ackAll();
    first.get();
    service.accept(command("e-1", "2014-11-18T15:40:26Z"));

    assertThat(publisher.published).hasSize(2);
  }

  @Test
  void aRepeatWithOtherContentIsADuplicateFlaggedAsAConflict() throws Exception {
    AcceptDeviceEventService service = service(10);
    CompletableFuture<Outcome> first =
        service.accept(command("e-1", "2014-11-18T15:40:26Z")).toCompletableFuture();
    publisher.ackAll();
    first.get();
    AcceptDeviceEventCommand finished =
        new AcceptDeviceEventCommand(
            "station-7",
            "e-1",
            DeviceEventType.Finished,
            OffsetDateTime.parse("2014-11-18T15:40:26Z"),
            "s-1",
            Json.mapper().createObjectNode());

    Outcome repeat = await(service.accept(finished));

    assertThat(repeat).isEqualTo(new Duplicate("e-1", true));
    assertThat(publisher.published).hasSize(1);
    assertThat(counted("duplicate", "conflicting-content")).isEqualTo(1);
  }

  /**
   * The command holds the time, not its text: a repeat that spells the same time otherwise writes
   * the same value, so it is no conflict; the same instant at another offset writes another value.
   */
  @Test
  void theFingerprintSeesTheTimeAndOffsetNotTheirSpelling() throws Exception {
    AcceptDeviceEventService service = service(10);
    CompletableFuture<Outcome> first =
        service.accept(command("e-1", "2014-11-18T15:40:26Z")).toCompletableFuture();
    publisher.ackAll();
    first.get();

    assertThat(await(service.accept(command("e-1", "2014-11-18T15:40:26.000Z"))))
        .isEqualTo(new Duplicate("e-1", false));
    assertThat(await(service.accept(command("e-1", "2014-11-18T16:40:26+01:00"))))
        .isEqualTo(new Duplicate("e-1", true));
  }

  @Test
  void theFingerprintIgnoresMemberOrderButNotANumbersDigits() throws Exception {
    var sevenFifty = (com.fasterxml.jackson.databind.node.ObjectNode) exact("{\"a\":1,\"n\":7.50}");
    var reordered = exact("{\"n\":7.50,\"a\":1}");
    var sevenFive = exact("{\"a\":1,\"n\":7.5}");

    assertThat(ContentFingerprint.of(withAttributes(sevenFifty)))
        .isEqualTo(ContentFingerprint.of(withAttributes(reordered)))
        .isNotEqualTo(ContentFingerprint.of(withAttributes(sevenFive)));
  }

  @Test
  void timestampsOutsideThePlausibleWindowAreRefusedAsOutOfRange() {
    // NOW is 2026-01-02T03:04:05Z; the default window ends one day later.
    for (String implausible :
        List.of(
            "0000-01-01T00:00:00Z",
            "1999-12-31T23:59:59Z",
            "2026-01-03T03:04:06Z",
            "9999-12-31T23:59:59Z")) {
      assertThatThrownBy(
              () -> service(10).accept(command("e-1", implausible)).toCompletableFuture().get())
          .as(implausible)
          .cause()
          .isInstanceOfSatisfying(
              InvalidDeviceEventException.class,
              e -> {
                assertThat(e.violations())
                    .extracting(v -> v.pointer() + " " + v.keyword())
                    .containsExactly("/occurredAt range");
                assertThat(e.violations().get(0).message())
                    .contains("2000-01-01T00:00:00Z", "2026-01-03T03:04:05Z");
              });
    }
    service(10).accept(command("e-1", "2000-01-01T00:00:00Z"));
    service(10).accept(command("e-2", "2026-01-03T03:04:05Z"));
    service(10).accept(command("e-3", "2014-11-18T15:40:26+01:00"));
    assertThat(publisher.published).hasSize(3);
  }

  /**
   * Issue 14: a size-bounded Caffeine cache admits by frequency (TinyLFU), so once it was full of
   * ids seen once, the ids accepted next were turned away and their resends written again.
   */
  @Test
  void everyIdAcceptedAmongTheLastSizeIsAnsweredDuplicateWhenTheCacheIsFull() throws Exception {
    AcceptDeviceEventService service = service(1_000);
    for (int i = 0; i < 5_000; i++) {
      CompletableFuture<Outcome> accepted =
          service.accept(command("e-" + i, "2014-11-18T15:40:26Z")).toCompletableFuture();
      publisher.ackAll();
      accepted.get();
    }
    int written = publisher.published.size();

    int duplicates = 0;
    for (int i = 4_000; i < 5_000; i++) {
      CompletableFuture<Outcome> resend =
          service.accept(command("e-" + i, "2014-11-18T15:40:26Z")).toCompletableFuture();
      publisher.ackAll();
      duplicates += resend.get() instanceof Duplicate ? 1 : 0;
    }

    assertThat(duplicates).isEqualTo(1_000);
    assertThat(publisher.published).hasSize(written);
  }

  @Test
  void aBatchIsWrittenInOrderAsOneSequenceWithAnOutcomePerEventAtItsIndex() throws Exception {
    AcceptDeviceEventService service = service(10);
    CompletableFuture<Outcome> earlier =
        service.accept(command("e-0", "2014-11-18T15:40:26Z")).toCompletableFuture();
    publisher.ackAll();
    earlier.get();

    CompletableFuture<List<Outcome>> batch =
        service
            .acceptAll(
                List.of(
                    command("e-1", "2014-11-18T15:40:26Z"),
                    command("e-2", "1999-12-31T23:59:59Z"),
                    command("e-3", "2014-11-18T15:41:26Z"),
                    command("e-1", "2014-11-18T15:40:26Z"),
                    command("e-0", "2014-11-18T15:40:26Z"),
                    command("e-3", "2014-11-18T15:59:59Z")))
            .toCompletableFuture();

    assertThat(publisher.sequences).containsExactly(List.of("e-1", "e-3"));
    assertThat(batch).as("answered only once every write is acknowledged").isNotDone();
    publisher.ackAll();
    List<Outcome> outcomes = batch.get();
    assertThat(outcomes).hasSize(6);
    assertThat(outcomes.get(0)).isEqualTo(new Accepted("e-1", "device-events.raw.v1", 0, 1));
    assertThat(outcomes.get(1))
        .isInstanceOfSatisfying(
            Invalid.class,
            invalid -> {
              assertThat(invalid.eventId()).isEqualTo("e-2");
              assertThat(invalid.violations())
                  .extracting(Violation::pointer, Violation::keyword)
                  .containsExactly(org.assertj.core.groups.Tuple.tuple("/occurredAt", "range"));
            });
    assertThat(outcomes.get(2)).isEqualTo(new Accepted("e-3", "device-events.raw.v1", 0, 2));
    assertThat(outcomes.get(3)).as("earlier in the batch").isEqualTo(new Duplicate("e-1", false));
    assertThat(outcomes.get(4)).as("acknowledged before").isEqualTo(new Duplicate("e-0", false));
    assertThat(outcomes.get(5)).as("other content").isEqualTo(new Duplicate("e-3", true));
    assertThat(counted("accepted")).isEqualTo(3);
  }

  @Test
  void aBatchNotWhollyAcknowledgedFailsAndItsResendWritesOnlyWhatWasMissing() throws Exception {
    AcceptDeviceEventService service = service(10);
    List<AcceptDeviceEventCommand> backlog =
        List.of(
            command("e-1", "2014-11-18T15:40:26Z"),
            command("e-2", "2014-11-18T15:41:26Z"),
            command("e-3", "2014-11-18T15:42:26Z"));
    CompletableFuture<List<Outcome>> first = service.acceptAll(backlog).toCompletableFuture();
    publisher.answer(p -> p.event().getId().equals("e-2") ? Reason.UNAVAILABLE : null);

    assertThatThrownBy(first::get)
        .cause()
        .isInstanceOfSatisfying(
            PublishException.class, e -> assertThat(e.reason()).isEqualTo(Reason.UNAVAILABLE));

    CompletableFuture<List<Outcome>> resend = service.acceptAll(backlog).toCompletableFuture();
    assertThat(publisher.sequences.get(1)).containsExactly("e-2");
    publisher.ackAll();
    assertThat(resend.get())
        .extracting(o -> o.getClass().getSimpleName())
        .containsExactly("Duplicate", "Accepted", "Duplicate");
  }

  @Test
  void anEventKafkaRefusesForGoodIsReportedAndTheRestOfTheBatchStands() throws Exception {
    AcceptDeviceEventService service = service(10);
    CompletableFuture<List<Outcome>> batch =
        service
            .acceptAll(
                List.of(
                    command("e-1", "2014-11-18T15:40:26Z"), command("e-2", "2014-11-18T15:41:26Z")))
            .toCompletableFuture();
    publisher.answer(p -> p.event().getId().equals("e-1") ? Reason.REJECTED : null);

    List<Outcome> outcomes = batch.get();
    assertThat(outcomes.get(0)).isInstanceOf(NotWritten.class);
    assertThat(outcomes.get(1)).isInstanceOf(Accepted.class);
  }

  @Test
  void aBatchIsOneDevicesAndNeverEmpty() {
    AcceptDeviceEventService service = service(10);
    assertThatThrownBy(() -> service.acceptAll(List.of()))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(
            () ->
                service.acceptAll(
                    List.of(
                        command("e-1", "2014-11-18T15:40:26Z"),
                        new AcceptDeviceEventCommand(
                            "station-8",
                            "e-2",
                            DeviceEventType.Started,
                            OffsetDateTime.parse("2014-11-18T15:40:26Z"),
                            null,
                            null))))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(publisher.published).isEmpty();
  }

  @Test
  void theKafkaAckLatencyIsTimed() throws Exception {
    CompletableFuture<Outcome> outcome =
        service(10).accept(command("e-1", "2014-11-18T15:40:26Z")).toCompletableFuture();
    publisher.ackAll();
    outcome.get();

    assertThat(registry.find(BridgeMetrics.KAFKA_ACK).tag("outcome", "acked").timer().count())
        .isEqualTo(1);
  }

  private static com.fasterxml.jackson.databind.JsonNode exact(String json) throws Exception {
    return Json.mapper()
        .copy()
        .enable(com.fasterxml.jackson.databind.DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
        .configure(
            com.fasterxml.jackson.databind.cfg.JsonNodeFeature.STRIP_TRAILING_BIGDECIMAL_ZEROES,
            false)
        .readTree(json);
  }

  private static AcceptDeviceEventCommand withAttributes(
      com.fasterxml.jackson.databind.JsonNode attributes) {
    return new AcceptDeviceEventCommand(
        "station-7",
        "e-1",
        DeviceEventType.Started,
        OffsetDateTime.parse("2014-11-18T15:40:26Z"),
        null,
        attributes);
  }

  private double counted(String outcome, String reason) {
    return registry
        .find(BridgeMetrics.DEVICE_EVENTS)
        .tag("outcome", outcome)
        .tag("reason", reason)
        .counters()
        .stream()
        .mapToDouble(c -> c.count())
        .sum();
  }

  private double counted(String outcome) {
    return registry.find(BridgeMetrics.DEVICE_EVENTS).tag("outcome", outcome).counters().stream()
        .mapToDouble(c -> c.count())
        .sum();
  }
}
