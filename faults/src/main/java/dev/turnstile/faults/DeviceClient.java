package dev.turnstile.faults;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * Sends device events to the bridge as a station that wants its events counted would: it keeps
 * sending the same event (same {@code eventId}) until the bridge answers {@code 2xx}, with the
 * fleet's bearer token. A {@code 503} or a {@code 429} is retried after its {@code Retry-After}; no
 * answer at all (connection refused or reset, the bridge killed, a request timeout) after a short
 * pause. Any other status means the harness built a bad request: it is counted and not retried.
 *
 * <p>The same port is used across bridge restarts, so a retry reaches the new process.
 */
final class DeviceClient {

  /** A request timeout above the bridge's Kafka ack timeout (10 s), so a 503 arrives first. */
  private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(20);

  private final URI base;
  private final String token;
  private final Ledger ledger;
  private final HttpClient http;
  private final List<String> refusals = new CopyOnWriteArrayList<>();
  private volatile long giveUpAtNanos = Long.MAX_VALUE;

  /**
   * @param token the bearer token the bridge accepts for every device
   */
  DeviceClient(URI base, String token, Ledger ledger) {
    this.base = base;
    this.token = token;
    this.ledger = ledger;
    this.http =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();
  }

  /** From now on, requests still failing after {@code patience} are given up. */
  void giveUpAfter(Duration patience) {
    giveUpAtNanos = System.nanoTime() + patience.toNanos();
  }

  /** The first few requests answered neither 2xx, 503 nor 429, with their answer. */
  List<String> refusals() {
    return refusals;
  }

  /**
   * Sends the session's {@code Started} ({@code started}) or {@code Finished} until it is accepted;
   * completes true once accepted, false when refused or given up.
   */
  CompletableFuture<Boolean> send(Ledger.Session session, boolean started, String body) {
    return attempt(session, started, body, true);
  }

  /** One more copy of an event, as a device whose answer got lost sends it: sent once. */
  CompletableFuture<Boolean> resend(Ledger.Session session, boolean started, String body) {
    ledger.countResend();
    return attempt(session, started, body, false);
  }

  private CompletableFuture<Boolean> attempt(
      Ledger.Session session, boolean started, String body, boolean untilAccepted) {
    ledger.countRequest();
    HttpRequest request =
        HttpRequest.newBuilder(base.resolve("/api/v1/devices/" + session.deviceId + "/events"))
            .header("Content-Type", "application/json")
            .header("Authorization", "Bearer " + token)
            .timeout(REQUEST_TIMEOUT)
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build();
    return http.sendAsync(request, HttpResponse.BodyHandlers.ofString())
        .handle(
            (response, error) -> {
              if (error == null && response.statusCode() / 100 == 2) {
                if (response.statusCode() == 200) {
                  ledger.countDuplicateAnswer();
                }
                ledger.accepted(session, started);
                return CompletableFuture.completedFuture(true);
              }
              long retryMillis;
              if (error != null) {
                ledger.countTransportError();
                retryMillis = 300 + ThreadLocalRandom.current().nextLong(700);
              } else if (response.statusCode() == 503 || response.statusCode() == 429) {
                // Unavailable, or the device's rate limit: both say when to come back.
                ledger.countUnavailable();
                retryMillis = retryAfterMillis(response);
              } else {
                ledger.countRefused();
                if (refusals.size() < 20) {
                  refusals.add(
                      session.deviceId
                          + "/"
                          + (started ? session.startEventId() : session.finishEventId())
                          + ": "
                          + response.statusCode()
                          + " "
                          + response.body());
                }
                return CompletableFuture.completedFuture(false);
              }
              if (!untilAccepted || System.nanoTime() > giveUpAtNanos) {
                return CompletableFuture.completedFuture(false);
              }
              Executor later =
                  CompletableFuture.delayedExecutor(retryMillis, TimeUnit.MILLISECONDS);
              return CompletableFuture.supplyAsync(() -> null, later)
                  .thenCompose(x -> attempt(session, started, body, true));
            })
        .thenCompose(f -> f);
  }

  /** {@code Retry-After} in seconds, capped to 0.2 .. 2 s: the harness sets it to 1 s. */
  private static long retryAfterMillis(HttpResponse<?> response) {
    long seconds = response.headers().firstValue("Retry-After").map(DeviceClient::parse).orElse(1L);
    return Math.min(Math.max(seconds * 1000, 200), 2000);
  }

  private static long parse(String text) {
    try {
      return Long.parseLong(text.trim());
    } catch (NumberFormatException e) {
      return 1;
    }
  }
}
