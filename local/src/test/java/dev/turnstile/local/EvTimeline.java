package dev.turnstile.local;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.turnstile.bridge.adapter.kafka.KafkaEventPublisher;
import dev.turnstile.bridge.application.AcceptDeviceEventService;
import dev.turnstile.bridge.application.KeyRule;
import dev.turnstile.bridge.application.RelayServiceBusMessageService;
import dev.turnstile.bridge.metrics.BridgeMetrics;
import dev.turnstile.bridge.port.in.AcceptDeviceEventUseCase;
import dev.turnstile.bridge.port.in.AcceptDeviceEventUseCase.AcceptDeviceEventCommand;
import dev.turnstile.bridge.port.in.RelayServiceBusMessageUseCase.Complete;
import dev.turnstile.bridge.port.in.RelayServiceBusMessageUseCase.ReceivedMessage;
import dev.turnstile.bridge.port.out.BodyValidator;
import dev.turnstile.schemas.Json;
import dev.turnstile.schemas.OccurredAtWindow;
import dev.turnstile.schemas.TopicCatalogue;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The EV charging data as the bridge would have received it in 2014-2015: every session's {@code
 * Started} and {@code Finished} from its station and its billing message from the back office, at
 * the data's own times plus plausible delays, with resends and reordering. Written through the
 * bridge's own write path ({@link AcceptDeviceEventService}, {@link RelayServiceBusMessageService},
 * {@link KafkaEventPublisher}) with a clock that reads each arrival time, so record timestamps, the
 * arrival times the rules use, span the data's year instead of the few seconds of a replay.
 *
 * <p>What the plan injects, from a seed: a quarter of the sessions send their {@code Started}
 * within ten minutes after their {@code Finished} (within the reorder grace); 15% of the device
 * events are sent again up to five minutes later; one billing message in twenty is delivered twice
 * (a lost lock). No session is left open at the end, so nothing waits for the wall clock.
 */
final class EvTimeline {

  /** One write, at its arrival time: a device event or a billing message. */
  record Arrival(Instant at, ChargingSession session, String what) {}

  /**
   * The plan's facts per session.
   *
   * @param startedAt arrival of the {@code Started}
   * @param finishedAt arrival of the {@code Finished}
   */
  record SessionArrivals(Instant startedAt, Instant finishedAt) {

    /** Whether the {@code Started} arrived after the {@code Finished}. */
    boolean reordered() {
      return startedAt.isAfter(finishedAt);
    }
  }

  final List<Arrival> arrivals = new ArrayList<>();
  final Map<String, SessionArrivals> sessions = new HashMap<>();
  long resends;
  long billingRedeliveries;

  EvTimeline(List<ChargingSession> rows, long seed) {
    Random random = new Random(seed);
    for (ChargingSession row : rows) {
      Instant created = row.created().atZone(EvChargingDataset.ZONE).toInstant();
      Instant ended = row.ended().atZone(EvChargingDataset.ZONE).toInstant();
      Instant finished = ended.plusMillis(1 + random.nextInt(20_000));
      Instant started = created.plusMillis(1 + random.nextInt(20_000));
      if (random.nextDouble() < 0.25) {
        started = finished.plusMillis(1_000 + random.nextInt(600_000));
      }
      sessions.put(row.sessionId(), new SessionArrivals(started, finished));
      add(started, row, "started", random);
      add(finished, row, "finished", random);
      Instant billed = ended.plusSeconds(60 + random.nextInt(3_600));
      arrivals.add(new Arrival(billed, row, "billing"));
      if (random.nextDouble() < 0.05) {
        billingRedeliveries++;
        arrivals.add(new Arrival(billed.plusMillis(1 + random.nextInt(60_000)), row, "billing"));
      }
    }
    arrivals.sort(Comparator.comparing(Arrival::at));
  }

  private void add(Instant at, ChargingSession row, String what, Random random) {
    arrivals.add(new Arrival(at, row, what));
    if (random.nextDouble() < 0.15) {
      resends++;
      arrivals.add(new Arrival(at.plusMillis(1 + random.nextInt(300_000)), row, what));
    }
  }

  /** Sessions whose {@code Finished} arrived at least {@code max} after their {@code Started}. */
  List<String> openAtLeast(Duration max) {
    return sessions.entrySet().stream()
        .filter(e -> !e.getValue().reordered())
        .filter(e -> !e.getValue().startedAt().plus(max).isAfter(e.getValue().finishedAt()))
        .map(Map.Entry::getKey)
        .sorted()
        .toList();
  }

  /**
   * Writes every arrival in order through the bridge's services, the clock at its arrival time, and
   * waits for every acknowledgement.
   *
   * @return records written
   */
  long write(String bootstrap) {
    AtomicLong now = new AtomicLong();
    Clock clock =
        new Clock() {
          @Override
          public ZoneOffset getZone() {
            return ZoneOffset.UTC;
          }

          @Override
          public Clock withZone(java.time.ZoneId zone) {
            return this;
          }

          @Override
          public Instant instant() {
            return Instant.ofEpochMilli(now.get());
          }
        };
    try (KafkaEventPublisher publisher =
        new KafkaEventPublisher(
            Map.of("bootstrap.servers", bootstrap), Duration.ofSeconds(30), 10_000, clock)) {
      AcceptDeviceEventService devices =
          new AcceptDeviceEventService(
              publisher,
              TopicCatalogue.DEVICE_EVENTS_RAW.baseName(),
              clock,
              new BridgeMetrics(new SimpleMeterRegistry()),
              0,
              Duration.ofMinutes(1),
              OccurredAtWindow.DEFAULT);
      RelayServiceBusMessageService billing =
          new RelayServiceBusMessageService(
              publisher,
              "turnstile-ev",
              Map.of(
                  LocalStack.BILLING_QUEUE,
                  new RelayServiceBusMessageService.Route(
                      TopicCatalogue.SERVICEBUS_MESSAGES_RAW.baseName(),
                      KeyRule.parse("property:" + BillingPublisher.MERGE_KEY_PROPERTY),
                      true,
                      BodyValidator.NONE)));
      List<CompletableFuture<?>> acks = new ArrayList<>();
      // A redelivered message keeps its sequence number and enqueued time; its count goes up.
      Map<String, ReceivedMessage> delivered = new HashMap<>();
      for (Arrival arrival : arrivals) {
        now.set(arrival.at().toEpochMilli());
        if (arrival.what().equals("billing")) {
          ReceivedMessage first = delivered.get(arrival.session().sessionId());
          ReceivedMessage message =
              first == null ? billingMessage(arrival, delivered.size() + 1L) : redelivery(first);
          delivered.putIfAbsent(arrival.session().sessionId(), message);
          acks.add(billing.relay(message).toCompletableFuture());
        } else {
          acks.add(devices.accept(deviceEvent(arrival)).toCompletableFuture());
        }
        if (acks.size() % 2_000 == 0) {
          CompletableFuture.allOf(acks.toArray(CompletableFuture[]::new)).join();
        }
      }
      CompletableFuture.allOf(acks.toArray(CompletableFuture[]::new)).join();
      for (CompletableFuture<?> ack : acks) {
        Object outcome = ack.join();
        if (outcome
                instanceof dev.turnstile.bridge.port.in.RelayServiceBusMessageUseCase.Settlement s
            && !(s instanceof Complete)) {
          throw new IllegalStateException("a billing message was not written: " + s);
        }
      }
      return acks.size();
    }
  }

  private static AcceptDeviceEventCommand deviceEvent(Arrival arrival) {
    DeviceEventRequest request =
        DeviceEventRequest.of(arrival.session()).get(arrival.what().equals("started") ? 0 : 1);
    JsonNode body = Json.mapper().valueToTree(readBody(request.body()));
    AcceptDeviceEventUseCase.Read read =
        AcceptDeviceEventCommand.read(request.deviceId(), body, null);
    if (read.command() == null) {
      throw new IllegalStateException("a generated event breaks a rule: " + read.violations());
    }
    return read.command();
  }

  private static JsonNode readBody(String body) {
    try {
      return Json.mapper().readTree(body);
    } catch (java.io.IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private static ReceivedMessage redelivery(ReceivedMessage first) {
    return new ReceivedMessage(
        first.entity(),
        first.entityPath(),
        first.messageId(),
        first.sequenceNumber(),
        first.enqueuedTime(),
        first.deliveryCount() + 1,
        first.sessionId(),
        first.partitionKey(),
        first.correlationId(),
        first.subject(),
        first.contentType(),
        first.applicationProperties(),
        first.body());
  }

  private static ReceivedMessage billingMessage(Arrival arrival, long sequence) {
    ChargingSession row = arrival.session();
    ObjectNode body = Json.mapper().createObjectNode();
    body.put("sessionId", row.sessionId());
    body.put("userId", row.userId());
    body.put("kwhTotal", row.kwhTotal());
    body.put("dollars", row.dollars());
    return new ReceivedMessage(
        LocalStack.BILLING_QUEUE,
        LocalStack.BILLING_QUEUE,
        "billing-" + row.sessionId(),
        sequence,
        arrival.at().atOffset(ZoneOffset.UTC),
        0,
        null,
        null,
        null,
        "charging-session-billed",
        "application/json",
        Map.of(BillingPublisher.MERGE_KEY_PROPERTY, row.sessionId()),
        body.toString().getBytes(StandardCharsets.UTF_8));
  }
}
