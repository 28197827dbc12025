package dev.turnstile.bench;

import dev.turnstile.bridge.adapter.kafka.KafkaEventPublisher;
import dev.turnstile.bridge.application.AcceptDeviceEventService;
import dev.turnstile.bridge.metrics.BridgeMetrics;
import dev.turnstile.bridge.port.in.AcceptDeviceEventUseCase.AcceptDeviceEventCommand;
import dev.turnstile.local.ChargingSession;
import dev.turnstile.local.EvChargingDataset;
import dev.turnstile.schemas.DeviceEventType;
import dev.turnstile.schemas.OccurredAtWindow;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Writes device events to {@code device-events.raw.v1} (or a topic of the same layout, such as a
 * benchmark's warm-up input) through the bridge's own write path ({@link AcceptDeviceEventService}
 * with the real Kafka publisher, its duplicate cache off), so the records are exactly what the
 * bridge writes: key, CloudEvents headers, JSON value, timestamp.
 *
 * <p>Shape: a fleet, not a drill. {@code devices} stations each run sessions one after another on a
 * simulated timeline: a session lasts a duration drawn from the EV dataset's sessions ({@code
 * data/}: minutes to 55 hours, median 2.8 h), then the station rests a gap drawn from an
 * exponential distribution (mean {@value #MEAN_GAP_HOURS} h). Every station's events are written in
 * the order the timeline sends them, so the sessions of all stations interleave and a {@code
 * Finished} comes hours of other stations' events after its {@code Started}. Faults a fleet has:
 * {@value #FINISHED_FIRST_PERCENT}% of sessions send their {@code Finished} before their {@code
 * Started} (the {@code Started} follows 1 to 10 simulated minutes later), and a fraction {@code
 * resendFraction} of events is sent again with the same {@code eventId}: half right after the first
 * copy (racing it), half 1 to 60 simulated minutes later (after its answer was lost). Every session
 * carries a {@code sessionRef}, its merge key. Seeded: the same arguments give the same records.
 */
final class DeviceEventLoad {

  static final double MEAN_GAP_HOURS = 4;
  static final int FINISHED_FIRST_PERCENT = 25;

  /**
   * What was written.
   *
   * @param sessionRefs the sessions whose events were all written, for their billing
   */
  record Loaded(
      long records,
      long distinct,
      long resends,
      long sessions,
      long finishedFirst,
      double seconds,
      @com.fasterxml.jackson.annotation.JsonIgnore List<String> sessionRefs) {}

  /**
   * One request of the load: sent at {@code atMillis} of the simulated timeline, about what
   * happened at {@code occurredMillis} (the device's clock).
   */
  private record Send(
      long atMillis, long occurredMillis, long order, int station, int session, boolean started) {}

  private DeviceEventLoad() {}

  /**
   * @param topic where the events go, e.g. {@code device-events.raw.v1}
   * @param dataset the EV charging sessions CSV whose session durations are drawn
   */
  static Loaded write(
      String bootstrap,
      String topic,
      Path dataset,
      long records,
      int devices,
      double resendFraction,
      long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    long[] durations = durationsFromDataset(dataset);
    List<Send> sends = new ArrayList<>();
    long finishedFirst = 0;
    long order = 0;
    long sessionsPerStation = Math.max(1, (long) Math.ceil(records / (2.0 * devices)));
    for (int station = 0; station < devices; station++) {
      long at = (long) (random.nextDouble() * Duration.ofHours(24).toMillis());
      for (int session = 0; session < sessionsPerStation; session++) {
        long started = at;
        long finished = started + durations[random.nextInt(durations.length)];
        long startedSent = started;
        if (random.nextInt(100) < FINISHED_FIRST_PERCENT) {
          startedSent = finished + minutes(random, 1, 10);
          finishedFirst++;
        }
        sends.add(new Send(startedSent, started, order++, station, session, true));
        sends.add(new Send(finished, finished, order++, station, session, false));
        at = finished + (long) (-Math.log(1 - random.nextDouble()) * MEAN_GAP_HOURS * 3_600_000);
      }
    }
    List<Send> withResends = new ArrayList<>(sends.size() * 2);
    for (Send send : sends) {
      withResends.add(send);
      if (random.nextDouble() < resendFraction) {
        long later = random.nextBoolean() ? 0 : minutes(random, 1, 60);
        withResends.add(
            new Send(
                send.atMillis() + later,
                send.occurredMillis(),
                order++,
                send.station(),
                send.session(),
                send.started()));
      }
    }
    withResends.sort(Comparator.comparingLong(Send::atMillis).thenComparingLong(Send::order));
    List<Send> written = withResends.subList(0, (int) Math.min(records, withResends.size()));
    // The timeline ends a day before now: the bridge refuses device times more than a day ahead.
    long end = written.stream().mapToLong(Send::occurredMillis).max().orElse(0);
    OffsetDateTime t0 =
        OffsetDateTime.now(ZoneOffset.UTC).minusDays(1).minus(Duration.ofMillis(end));
    Written result = send(bootstrap, topic, written, t0);
    long distinct = written.stream().filter(s -> s.order() < sends.size()).count();
    List<String> refs = completeSessions(written);
    return new Loaded(
        result.records(),
        distinct,
        written.size() - distinct,
        refs.size(),
        finishedFirst,
        result.seconds(),
        refs);
  }

  static String sessionRef(int station, int session) {
    return "s" + station + "-" + session;
  }

  private static long minutes(SplittableRandom random, int from, int to) {
    return Duration.ofMinutes(from).toMillis()
        + (long) (random.nextDouble() * Duration.ofMinutes(to - from).toMillis());
  }

  /** The dataset's session durations, ms; a session of 0 s counts as one minute. */
  private static long[] durationsFromDataset(Path dataset) {
    List<ChargingSession> rows = EvChargingDataset.read(dataset);
    return rows.stream()
        .mapToLong(s -> Math.max(60_000, Duration.between(s.created(), s.ended()).toMillis()))
        .toArray();
  }

  /** Sessions whose Started and Finished were both written. */
  private static List<String> completeSessions(List<Send> written) {
    // Sessions as station << 32 | session: millions of them fit the harness's heap.
    Set<Long> finished = new HashSet<>();
    for (Send send : written) {
      if (!send.started()) {
        finished.add(sessionKey(send));
      }
    }
    // In the order their Started was first written.
    List<String> refs = new ArrayList<>();
    for (Send send : written) {
      if (send.started() && finished.remove(sessionKey(send))) {
        refs.add(sessionRef(send.station(), send.session()));
      }
    }
    return refs;
  }

  private static long sessionKey(Send send) {
    return ((long) send.station() << 32) | (send.session() & 0xFFFF_FFFFL);
  }

  private record Written(long records, double seconds) {}

  private static Written send(String bootstrap, String topic, List<Send> sends, OffsetDateTime t0) {
    KafkaEventPublisher publisher =
        new KafkaEventPublisher(
            Map.of("bootstrap.servers", bootstrap),
            Duration.ofSeconds(30),
            20_000,
            Clock.systemUTC());
    AcceptDeviceEventService service =
        new AcceptDeviceEventService(
            publisher,
            topic,
            Clock.systemUTC(),
            new BridgeMetrics(new SimpleMeterRegistry()),
            0,
            Duration.ofMinutes(1),
            OccurredAtWindow.DEFAULT);
    Semaphore window = new Semaphore(10_000);
    AtomicReference<Throwable> failure = new AtomicReference<>();
    AtomicLong written = new AtomicLong();
    long began = System.nanoTime();
    try {
      for (Send send : sends) {
        String ref = sessionRef(send.station(), send.session());
        AcceptDeviceEventCommand command =
            new AcceptDeviceEventCommand(
                "station-" + send.station(),
                ref + (send.started() ? "-s" : "-f"),
                send.started() ? DeviceEventType.Started : DeviceEventType.Finished,
                t0.plus(Duration.ofMillis(send.occurredMillis())),
                ref,
                null);
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
    return new Written(written.get(), (System.nanoTime() - began) / 1e9);
  }
}
