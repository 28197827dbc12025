package dev.turnstile.bench;

import dev.turnstile.bridge.adapter.kafka.KafkaEventPublisher;
import dev.turnstile.bridge.application.AcceptDeviceEventService;
import dev.turnstile.bridge.metrics.BridgeMetrics;
import dev.turnstile.bridge.port.in.AcceptDeviceEventUseCase.AcceptDeviceEventCommand;
import dev.turnstile.schemas.OccurredAtWindow;
import dev.turnstile.schemas.TopicCatalogue;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Writes device events to {@code device-events.raw.v1} through the bridge's own write path ({@link
 * AcceptDeviceEventService} with the real Kafka publisher, its duplicate cache off), so the records
 * are exactly what the bridge writes: key, CloudEvents headers, JSON value, timestamp.
 *
 * <p>Shape: {@code devices} stations run sessions one after another; round {@code k} sends every
 * station's {@code Started}, then every station's {@code Finished} of session {@code k}, each with
 * a {@code sessionRef}. A fraction {@code resendFraction} of events is sent a second time right
 * after, with the same {@code eventId}, as a device does that lost the answer. Seeded: the same
 * arguments give the same records.
 */
final class DeviceEventLoad {

  record Loaded(long records, long distinct, long resends, long sessions, double seconds) {}

  private DeviceEventLoad() {}

  static Loaded write(
      String bootstrap, long records, int devices, double resendFraction, long seed) {
    KafkaEventPublisher publisher =
        new KafkaEventPublisher(
            Map.of("bootstrap.servers", bootstrap),
            Duration.ofSeconds(30),
            20_000,
            Clock.systemUTC());
    AcceptDeviceEventService service =
        new AcceptDeviceEventService(
            publisher,
            TopicCatalogue.DEVICE_EVENTS_RAW.baseName(),
            Clock.systemUTC(),
            new BridgeMetrics(new SimpleMeterRegistry()),
            0,
            Duration.ofMinutes(1),
            OccurredAtWindow.DEFAULT);
    SplittableRandom random = new SplittableRandom(seed);
    Semaphore window = new Semaphore(10_000);
    AtomicReference<Throwable> failure = new AtomicReference<>();
    AtomicLong written = new AtomicLong();
    // Device times ten minutes apart per round, all in the past (the bridge refuses times more
    // than a day ahead of its clock).
    long rounds = records / (2L * devices) + 1;
    OffsetDateTime t0 = OffsetDateTime.now(ZoneOffset.UTC).minusMinutes(10 * rounds).minusDays(1);
    long began = System.nanoTime();
    long sent = 0;
    long resends = 0;
    long distinct = 0;
    long sessions = 0;
    try {
      outer:
      for (int round = 0; ; round++) {
        for (int phase = 0; phase < 2; phase++) {
          for (int d = 0; d < devices; d++) {
            if (sent >= records) {
              break outer;
            }
            String session = round + "-" + d;
            boolean started = phase == 0;
            AcceptDeviceEventCommand command =
                new AcceptDeviceEventCommand(
                    "station-" + d,
                    session + (started ? "-s" : "-f"),
                    started ? "Started" : "Finished",
                    t0.plusMinutes(round * 10L + (started ? 0 : 5)).toString(),
                    session,
                    null);
            distinct++;
            sessions += started ? 1 : 0;
            int copies = random.nextDouble() < resendFraction ? 2 : 1;
            for (int c = 0; c < copies && sent < records; c++) {
              send(service, command, window, failure, written);
              sent++;
              resends += c;
            }
          }
        }
      }
      window.acquire(10_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while loading", e);
    } finally {
      publisher.close(Duration.ofSeconds(30));
    }
    if (failure.get() != null) {
      throw new IllegalStateException("the load could not be written", failure.get());
    }
    return new Loaded(
        written.get(), distinct, resends, sessions, (System.nanoTime() - began) / 1e9);
  }

  private static void send(
      AcceptDeviceEventService service,
      AcceptDeviceEventCommand command,
      Semaphore window,
      AtomicReference<Throwable> failure,
      AtomicLong written)
      throws InterruptedException {
    window.acquire();
    CompletableFuture<?> answer = service.accept(command).toCompletableFuture();
    answer.whenComplete(
        (outcome, error) -> {
          if (error != null) {
            failure.compareAndSet(null, error);
          } else {
            written.incrementAndGet();
          }
          window.release();
        });
  }
}
