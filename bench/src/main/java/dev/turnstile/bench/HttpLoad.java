package dev.turnstile.bench;

import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

/**
 * HTTP load from the harness: Vert.x's HTTP/1.1 client (Netty) over keep-alive connections to
 * 127.0.0.1, latency recorded in an HdrHistogram (microseconds).
 *
 * <ul>
 *   <li>{@link #closedLoop}: {@code connections} clients, each sending its next request as soon as
 *       the answer to the previous one arrived: the server's saturation throughput at that
 *       concurrency; latency from send to answer.
 *   <li>{@link #fixedRate}: requests started on a schedule of {@code rate} per second whatever the
 *       answers do, over at most {@code connections} connections (the rest wait for one); latency
 *       from the scheduled start, so a stall counts for every request it delays (no coordinated
 *       omission).
 * </ul>
 *
 * Only answers that arrive inside the measured window (after the warm-up) count for throughput and
 * latency; every answer counts for the record totals checked against Kafka.
 */
final class HttpLoad implements AutoCloseable {

  /** One request to send: the {@code sequence}-th of the run. */
  interface Requests {
    Request next(long sequence);
  }

  /**
   * @param onSuccess called with {@link System#nanoTime()} when a 2xx answer arrived, or {@code
   *     null}
   */
  /**
   * @param authorization the {@code Authorization} header, or {@code null} for none
   * @param onSuccess told the nanoTime of a 2xx answer, or {@code null}
   */
  record Request(
      String uri, String contentType, Buffer body, String authorization, LongConsumer onSuccess) {

    Request(String uri, String contentType, Buffer body, String authorization) {
      this(uri, contentType, body, authorization, null);
    }
  }

  /**
   * @param answered2xx answers 200..299 in the whole run (warm-up included)
   * @param answeredOther other statuses in the whole run
   * @param failed requests without an answer (connection errors, timeouts)
   * @param measured2xx 2xx answers inside the measured window
   * @param seconds length of the measured window
   * @param latencyMicros latencies of the measured window's answers
   */
  record Result(
      long answered2xx,
      long answeredOther,
      long failed,
      long measured2xx,
      double seconds,
      Histogram latencyMicros) {

    double requestsPerSecond() {
      return measured2xx / seconds;
    }

    double percentileMillis(double percentile) {
      return latencyMicros.getValueAtPercentile(percentile) / 1_000.0;
    }
  }

  private final Vertx vertx;
  private final int eventLoops;

  /**
   * @param eventLoops the client's event loops (threads)
   */
  HttpLoad(int eventLoops) {
    this.vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(eventLoops));
    this.eventLoops = eventLoops;
  }

  /** {@code connections} clients in a closed loop for {@code warmup + measure}. */
  Result closedLoop(
      int port, int connections, Duration warmup, Duration measure, Requests requests) {
    Run run = new Run(port, connections, warmup, measure, requests);
    for (int i = 0; i < connections; i++) {
      run.sendLooping();
    }
    return run.finish();
  }

  /** {@code rate} requests per second on a schedule, over at most {@code connections}. */
  Result fixedRate(
      int port,
      int connections,
      double rate,
      Duration warmup,
      Duration measure,
      Requests requests) {
    Run run = new Run(port, connections, warmup, measure, requests);
    long periodic =
        vertx.setPeriodic(
            1,
            id -> {
              long now = System.nanoTime();
              long due = Math.min(now, run.until) - run.start;
              long target = (long) (due / 1e9 * rate);
              while (run.scheduled < target) {
                long intended = run.start + (long) (run.scheduled * 1e9 / rate);
                run.scheduled++;
                run.send(intended, false);
              }
            });
    Result result = run.finish();
    vertx.cancelTimer(periodic);
    return result;
  }

  @Override
  public void close() {
    vertx.close().toCompletionStage().toCompletableFuture().join();
  }

  /** One run: its client, counters and window. */
  private final class Run {
    final HttpClientAgent client;
    final Requests requests;
    final long start = System.nanoTime();
    final long from;
    final long until;
    final AtomicLong sequence = new AtomicLong();
    final AtomicLong inFlight = new AtomicLong();
    final AtomicLong ok = new AtomicLong();
    final AtomicLong other = new AtomicLong();
    final AtomicLong failed = new AtomicLong();
    final AtomicLong measuredOk = new AtomicLong();
    final ConcurrentHistogram latency = new ConcurrentHistogram(3);
    long scheduled;

    Run(int port, int connections, Duration warmup, Duration measure, Requests requests) {
      this.client =
          vertx.createHttpClient(
              new HttpClientOptions()
                  .setDefaultHost("127.0.0.1")
                  .setDefaultPort(port)
                  .setKeepAlive(true)
                  .setPipelining(false),
              new PoolOptions().setHttp1MaxSize(connections).setEventLoopSize(eventLoops));
      this.requests = requests;
      this.from = start + warmup.toNanos();
      this.until = from + measure.toNanos();
    }

    void sendLooping() {
      if (System.nanoTime() < until) {
        send(System.nanoTime(), true);
      }
    }

    void send(long startedAt, boolean loop) {
      Request request = requests.next(sequence.getAndIncrement());
      inFlight.incrementAndGet();
      RequestOptions options =
          new RequestOptions()
              .setMethod(HttpMethod.POST)
              .setURI(request.uri())
              .putHeader("Content-Type", request.contentType())
              .setTimeout(30_000);
      if (request.authorization() != null) {
        options.putHeader("Authorization", request.authorization());
      }
      client
          .request(options)
          .compose(
              req ->
                  req.send(request.body())
                      .compose(response -> response.body().map(b -> response.statusCode())))
          .onComplete(
              answer -> {
                long now = System.nanoTime();
                boolean success = answer.succeeded() && answer.result() / 100 == 2;
                if (answer.failed()) {
                  failed.incrementAndGet();
                } else if (success) {
                  ok.incrementAndGet();
                } else {
                  other.incrementAndGet();
                }
                if (success && request.onSuccess() != null) {
                  request.onSuccess().accept(now);
                }
                if (success && now >= from && now < until) {
                  measuredOk.incrementAndGet();
                  latency.recordValue(Math.max(0, (now - startedAt) / 1_000));
                }
                inFlight.decrementAndGet();
                if (loop) {
                  sendLooping();
                }
              });
    }

    Result finish() {
      sleepUntil(until);
      long drainDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (inFlight.get() > 0 && System.nanoTime() < drainDeadline) {
        sleepUntil(System.nanoTime() + 10_000_000);
      }
      CountDownLatch closed = new CountDownLatch(1);
      client.close().onComplete(done -> closed.countDown());
      await(closed);
      return new Result(
          ok.get(),
          other.get(),
          failed.get() + inFlight.get(),
          measuredOk.get(),
          (until - from) / 1e9,
          latency.copy());
    }
  }

  private static void sleepUntil(long nanoTime) {
    long left;
    while ((left = nanoTime - System.nanoTime()) > 0) {
      try {
        TimeUnit.NANOSECONDS.sleep(Math.min(left, 100_000_000L));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted", e);
      }
    }
  }

  private static void await(CountDownLatch latch) {
    try {
      latch.await(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }
}
