package dev.turnstile.local;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Replays charging sessions through the bridge's real HTTP endpoint as a fleet of unreliable
 * stations would: out of order, some events sent twice with the same {@code eventId}, and a 503
 * answered by waiting for {@code Retry-After} and sending again.
 *
 * <p>What is injected on top of the file (the file itself has no duplicates):
 *
 * <ul>
 *   <li>reordering: for {@code reorderFraction} of the sessions the {@code Finished} is sent before
 *       the {@code Started}; besides, requests run {@code concurrency} at a time, so events of one
 *       session race each other;
 *   <li>retries: {@code duplicateFraction} of the events are sent twice. Half are resent at once,
 *       racing the first copy (a device whose request timed out): both copies can reach Kafka, and
 *       the topology's dedup drops one. The other half are resent after the first answer (a device
 *       that lost the response): the bridge may answer {@code 200 duplicate} without a write.
 * </ul>
 */
final class Replayer {

  /** How the replay is shaped; the seed makes a run repeatable. */
  record Plan(long seed, double reorderFraction, double duplicateFraction, int concurrency) {}

  /** What the replay did, counted on the client side. */
  record Report(
      long requests,
      long uniqueEvents,
      long duplicatesInjected,
      long sessionsReordered,
      long accepted,
      long answeredDuplicate,
      long unavailable,
      long failed,
      List<String> failures) {}

  private static final int MAX_ATTEMPTS = 20;

  private final URI base;
  private final String token;
  private final HttpClient http;

  /**
   * @param token the bearer token sent with every request (the local stack's fleet token)
   */
  Replayer(URI base, String token) {
    this.base = base;
    this.token = token;
    this.http =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();
  }

  Report replay(List<ChargingSession> sessions, Plan plan) throws InterruptedException {
    Random random = new Random(plan.seed());
    List<DeviceEventRequest> order = new ArrayList<>();
    long reordered = 0;
    for (ChargingSession session : sessions) {
      List<DeviceEventRequest> pair = new ArrayList<>(DeviceEventRequest.of(session));
      if (random.nextDouble() < plan.reorderFraction()) {
        Collections.reverse(pair);
        reordered++;
      }
      order.addAll(pair);
    }
    Counters counters = new Counters();
    Semaphore slots = new Semaphore(plan.concurrency());
    List<CompletableFuture<Void>> all = new ArrayList<>();
    long injected = 0;
    for (DeviceEventRequest request : order) {
      double roll = random.nextDouble();
      boolean resendAtOnce = roll < plan.duplicateFraction() / 2;
      boolean resendAfterAnswer = !resendAtOnce && roll < plan.duplicateFraction();
      slots.acquire();
      CompletableFuture<Void> first =
          send(request, counters, 1).whenComplete((r, e) -> slots.release());
      if (resendAtOnce) {
        injected++;
        slots.acquire();
        all.add(send(request, counters, 1).whenComplete((r, e) -> slots.release()));
      }
      if (resendAfterAnswer) {
        injected++;
        first = first.thenCompose(done -> send(request, counters, 1));
      }
      all.add(first);
    }
    CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).join();
    return new Report(
        counters.requests.get(),
        order.size(),
        injected,
        reordered,
        counters.accepted.get(),
        counters.duplicate.get(),
        counters.unavailable.get(),
        counters.failed.get(),
        List.copyOf(counters.failures));
  }

  private CompletableFuture<Void> send(DeviceEventRequest request, Counters counters, int attempt) {
    counters.requests.incrementAndGet();
    HttpRequest http =
        HttpRequest.newBuilder(base.resolve("/api/v1/devices/" + request.deviceId() + "/events"))
            .header("Content-Type", "application/json")
            .header("Authorization", "Bearer " + token)
            .timeout(Duration.ofSeconds(30))
            .POST(HttpRequest.BodyPublishers.ofString(request.body()))
            .build();
    return this.http
        .sendAsync(http, HttpResponse.BodyHandlers.ofString())
        .thenCompose(
            response -> {
              switch (response.statusCode()) {
                case 202 -> counters.accepted.incrementAndGet();
                case 200 -> counters.duplicate.incrementAndGet();
                case 503, 429 -> {
                  counters.unavailable.incrementAndGet();
                  if (attempt < MAX_ATTEMPTS) {
                    long wait = retryAfterSeconds(response);
                    return CompletableFuture.runAsync(
                            () -> {},
                            CompletableFuture.delayedExecutor(
                                wait, java.util.concurrent.TimeUnit.SECONDS))
                        .thenCompose(x -> send(request, counters, attempt + 1));
                  }
                  counters.fail(request, response.statusCode() + " after " + attempt + " attempts");
                }
                default -> counters.fail(request, response.statusCode() + " " + response.body());
              }
              return CompletableFuture.completedFuture(null);
            })
        .exceptionally(
            e -> {
              counters.fail(request, e.toString());
              return null;
            });
  }

  private static long retryAfterSeconds(HttpResponse<?> response) {
    return response
        .headers()
        .firstValue("Retry-After")
        .map(Long::parseLong)
        .map(s -> Math.min(Math.max(s, 1), 5))
        .orElse(1L);
  }

  private static final class Counters {
    final AtomicLong requests = new AtomicLong();
    final AtomicLong accepted = new AtomicLong();
    final AtomicLong duplicate = new AtomicLong();
    final AtomicLong unavailable = new AtomicLong();
    final AtomicLong failed = new AtomicLong();
    final List<String> failures = Collections.synchronizedList(new ArrayList<>());

    void fail(DeviceEventRequest request, String why) {
      failed.incrementAndGet();
      if (failures.size() < 10) {
        failures.add(request.deviceId() + "/" + request.eventId() + ": " + why);
      }
    }
  }
}
