package dev.turnstile.faults;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.turnstile.local.ChargingSession;
import dev.turnstile.local.DeviceEventRequest;
import dev.turnstile.local.EvChargingDataset;
import dev.turnstile.schemas.Json;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The traffic of the run, from its own thread until {@link #stop()}: rounds of the EV dataset
 * replayed (each row a session of its real station, under a reference unique to the round) with
 * generated sessions of synthetic stations in between, each with its billing message on Service
 * Bus; and, every {@link Plan#abandonedEvery()}, a burst of {@code Started} events that never
 * finish, so that the topology's punctuator has sessions to expire.
 *
 * <p>On top, as a fleet misbehaves: {@link Plan#resendFraction()} of the events are sent twice
 * (half racing the first copy, half after its answer) and {@link Plan#reorderFraction()} of the
 * sessions send {@code Finished} first. Seeded: the same plan gives the same sessions in the same
 * order.
 */
final class Load {

  /**
   * @param generatedPerRow generated sessions sent after each replayed row
   * @param sessionsInFlight sessions whose events are being sent at once
   * @param abandonedBurst {@code Started}-only sessions per burst, each on its own device
   */
  record Plan(
      long seed,
      double resendFraction,
      double reorderFraction,
      int generatedPerRow,
      int sessionsInFlight,
      int abandonedBurst,
      Duration abandonedEvery) {}

  private static final DateTimeFormatter RFC_3339 = DateTimeFormatter.ISO_OFFSET_DATE_TIME;

  private final Plan plan;
  private final List<ChargingSession> rows;
  private final Ledger ledger;
  private final DeviceClient devices;
  private final BillingSender billing;
  private final Throttle throttle;
  private final Random random;
  private final Semaphore inFlight;
  private final AtomicLong events = new AtomicLong();
  private final List<Long> bursts = new CopyOnWriteArrayList<>();
  private final Thread thread;
  private final long epochMillis = Instant.now().minusSeconds(86_400).toEpochMilli();
  private volatile boolean stopping;
  private long generated;
  private long abandoned;

  Load(
      Plan plan,
      List<ChargingSession> rows,
      Ledger ledger,
      DeviceClient devices,
      BillingSender billing,
      Throttle throttle) {
    this.plan = plan;
    this.rows = rows;
    this.ledger = ledger;
    this.devices = devices;
    this.billing = billing;
    this.throttle = throttle;
    this.random = new Random(plan.seed());
    this.inFlight = new Semaphore(plan.sessionsInFlight());
    this.thread = new Thread(this::run, "load");
    thread.setDaemon(true);
  }

  void start() {
    thread.start();
  }

  /** Distinct events created so far: HTTP events and billing messages. */
  long events() {
    return events.get();
  }

  /**
   * Times (epoch ms) at which each burst of abandoned sessions had every {@code Started} accepted;
   * they expire {@code topology.session.max-duration-ms} later.
   */
  List<Long> bursts() {
    return bursts;
  }

  /** Stops creating sessions and waits until every session created has had its events answered. */
  void stop() {
    stopping = true;
    try {
      thread.join();
      inFlight.acquire(plan.sessionsInFlight());
      inFlight.release(plan.sessionsInFlight());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void run() {
    // The first burst early, so a short run sees its sessions expire while it still injects faults.
    long nextBurst =
        System.nanoTime()
            + Math.min(plan.abandonedEvery().toNanos() / 2, Duration.ofSeconds(10).toNanos());
    try {
      for (int round = 0; !stopping; round++) {
        for (int row = 0; row < rows.size(); row++) {
          if (stopping) {
            return;
          }
          send(replayed(round, row));
          for (int g = 0; g < plan.generatedPerRow() && !stopping; g++) {
            send(generated());
          }
          if (plan.abandonedBurst() > 0 && System.nanoTime() > nextBurst) {
            burst();
            nextBurst = System.nanoTime() + plan.abandonedEvery().toNanos();
          }
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private Ledger.Session replayed(int round, int index) {
    ChargingSession row = rows.get(index);
    String ref = "r" + round + "-" + row.sessionId();
    return new Ledger.Session(
        Ledger.Origin.REPLAY,
        row.stationId(),
        ref,
        row.created().atZone(EvChargingDataset.ZONE).toInstant().toEpochMilli(),
        row.ended().atZone(EvChargingDataset.ZONE).toInstant().toEpochMilli(),
        row.kwhTotal(),
        row.dollars(),
        index);
  }

  private Ledger.Session generated() {
    long n = generated++;
    long start = epochMillis + random.nextInt(72_000) * 1000L;
    long duration = (60 + random.nextInt(36_000)) * 1000L;
    return new Ledger.Session(
        Ledger.Origin.GENERATED,
        "gen-" + random.nextInt(1000),
        "g" + n,
        start,
        start + duration,
        BigDecimal.valueOf(random.nextInt(4000), 2),
        BigDecimal.valueOf(random.nextInt(1500), 2),
        -1);
  }

  /** Sends a session's events (and bills it) under a permit released once all are answered. */
  private void send(Ledger.Session session) throws InterruptedException {
    throttle.awaitOpen();
    inFlight.acquire();
    sendNow(session).whenComplete((r, e) -> inFlight.release());
  }

  /**
   * Sends a session at once, outside the load's permits and throttle (the canaries); completes when
   * every event was answered.
   */
  CompletableFuture<Void> sendNow(Ledger.Session session) {
    ledger.add(session);
    if (session.billed()) {
      billing.bill(session);
      events.incrementAndGet();
    }
    if (!session.finishes()) {
      events.incrementAndGet();
      return event(session, true);
    }
    events.addAndGet(2);
    boolean finishedFirst;
    synchronized (random) {
      finishedFirst = random.nextDouble() < plan.reorderFraction();
    }
    return event(session, !finishedFirst).thenCompose(x -> event(session, finishedFirst));
  }

  private CompletableFuture<Void> event(Ledger.Session session, boolean started) {
    String body = body(session, started);
    double roll;
    synchronized (random) {
      roll = random.nextDouble();
    }
    CompletableFuture<Boolean> first = devices.send(session, started, body);
    if (roll < plan.resendFraction() / 2) {
      return CompletableFuture.allOf(first, devices.resend(session, started, body));
    }
    if (roll < plan.resendFraction()) {
      return first.thenCompose(x -> devices.resend(session, started, body)).thenApply(x -> null);
    }
    return first.thenApply(x -> null);
  }

  private void burst() throws InterruptedException {
    long n = abandoned++;
    CompletableFuture<?>[] all = new CompletableFuture<?>[plan.abandonedBurst()];
    for (int i = 0; i < all.length; i++) {
      long start = System.currentTimeMillis() - 60_000;
      Ledger.Session session =
          new Ledger.Session(
              Ledger.Origin.ABANDONED,
              "idle-" + n + "-" + i,
              "a" + n + "-" + i,
              start,
              -1,
              null,
              null,
              -1);
      inFlight.acquire();
      all[i] = sendNow(session).whenComplete((r, e) -> inFlight.release());
    }
    CompletableFuture.allOf(all).thenRun(() -> bursts.add(System.currentTimeMillis()));
  }

  /** The request body of the session's {@code Started} or {@code Finished}. */
  String body(Ledger.Session session, boolean started) {
    if (session.row >= 0) {
      // A replayed row's body as the demo sends it, attributes included, under the round's ref.
      ChargingSession row = rows.get(session.row);
      ChargingSession renamed =
          new ChargingSession(
              session.sessionRef,
              row.stationId(),
              row.created(),
              row.ended(),
              row.kwhTotal(),
              row.dollars(),
              row.chargeTimeHrs(),
              row.userId(),
              row.locationId(),
              row.platform(),
              row.facilityType());
      return DeviceEventRequest.of(renamed).get(started ? 0 : 1).body();
    }
    ObjectNode body = Json.mapper().createObjectNode();
    body.put("eventId", started ? session.startEventId() : session.finishEventId());
    body.put("type", started ? "Started" : "Finished");
    long at = started ? session.startedAtMillis : session.endedAtMillis;
    body.put("occurredAt", RFC_3339.format(Instant.ofEpochMilli(at).atOffset(ZoneOffset.UTC)));
    body.put("sessionRef", session.sessionRef);
    return body.toString();
  }
}
