package dev.turnstile.bridge.adapter.kafka;

import dev.turnstile.bridge.config.BridgeProducerConfig;
import dev.turnstile.bridge.port.out.PublishEventPort;
import dev.turnstile.bridge.port.out.PublishException;
import dev.turnstile.bridge.port.out.PublishException.Reason;
import io.cloudevents.CloudEvent;
import io.cloudevents.kafka.KafkaMessageFactory;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.kafka.KafkaClientMetrics;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.UnaryOperator;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes CloudEvents to Kafka in binary content mode with one producer shared by the process
 * ({@code acks=all}, idempotent, lz4), so batches fill across requests.
 *
 * <p>Sends run on the caller's thread (an HTTP event loop, a Service Bus receiver) and never block
 * it: the producer's {@code max.block.ms} is 0, so a record Kafka cannot take at once (the topic's
 * metadata not fetched yet, the producer's buffer full) fails the send at once with Kafka's {@code
 * TimeoutException}, in the callback, inside {@code send()}. Such a record waits, with the rest of
 * its sequence and every sequence published to its topic after it, in the topic's backlog, which
 * one retry thread sends in order, after {@value #RETRY_MS} ms and then twice as long each time up
 * to {@value #MAX_RETRY_MS} ms, until the ack timeout: a topic's sends reach the producer in the
 * order they were published, as they did through one sending thread (one key's writes keep their
 * order), and a topic whose metadata is being fetched again (say a quiet Service Bus entity's,
 * after five idle minutes) holds up no other topic's. A topic the broker refuses to describe to the
 * bridge (authorization) or calls invalid is not retried. The common case, metadata known and room
 * in the buffer, costs no hand-off: handing every send to a dedicated thread took a tenth of the
 * bridge's CPU per single event (bench bridge --profile, 64 connections: the queue, the wake-up,
 * the thread's park). Kafka counts each attempt it could not take in the producer's {@code
 * record-error-total}: a few at start and after five idle minutes ({@code metadata.max.idle.ms}),
 * when the topic's metadata is fetched again, and while the buffer is full at most one every
 * {@value #MAX_RETRY_MS} ms.
 *
 * <p>In-flight writes are bounded by a semaphore: when it is exhausted the write fails at once with
 * {@link Reason#SATURATED}. The wait for the ack is bounded by the ack timeout ({@link
 * Reason#UNAVAILABLE} after it); errors a retry cannot fix fail with {@link Reason#REJECTED}.
 */
public final class KafkaEventPublisher implements PublishEventPort, AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(KafkaEventPublisher.class);

  /** The first wait before a send Kafka could not take at once is tried again. */
  static final int RETRY_MS = 5;

  /** The longest wait between two tries of one sequence. */
  static final int MAX_RETRY_MS = 100;

  private final Producer<String, byte[]> producer;
  private final ScheduledExecutorService retries;
  private final Semaphore inFlight;
  private final Duration ackTimeout;
  private final Clock clock;
  private final UnaryOperator<String> whyNotWritable;
  private volatile KafkaClientMetrics clientMetrics;
  private volatile boolean closed;

  /**
   * Held while sending, so the producer gets a topic's records in the order they were published;
   * guards {@link #backlogs}, {@link #drainScheduled} and {@link #retryMs}.
   */
  private final Object order = new Object();

  /**
   * Per topic, the sequences waiting for Kafka to take their next record, oldest first; no empty
   * one is kept. Failed by close.
   */
  private final Map<String, ArrayDeque<Sequence>> backlogs = new HashMap<>();

  private boolean drainScheduled;
  private int retryMs = RETRY_MS;

  /**
   * @param passThrough client keys given to the producer unchanged (bootstrap servers, security),
   *     except those that carry the delivery guarantee and the bounds, which {@link
   *     BridgeProducerConfig} fixes
   * @param ackTimeout longest wait for an ack, retries of a send Kafka could not take at once
   *     included; also {@code delivery.timeout.ms}
   * @param maxInFlight writes awaiting their ack at most
   */
  public KafkaEventPublisher(
      Map<String, String> passThrough, Duration ackTimeout, int maxInFlight, Clock clock) {
    this(passThrough, ackTimeout, maxInFlight, clock, topic -> null);
  }

  /**
   * As above, and writes only to topics that {@code whyNotWritable} answers {@code null} for; a
   * write to another topic fails at once with {@link Reason#UNAVAILABLE} and that answer. A
   * producer's first send to a missing topic would make a broker that allows auto-creation create
   * it with the broker's defaults, so nothing is sent before the topic is known to exist.
   */
  public KafkaEventPublisher(
      Map<String, String> passThrough,
      Duration ackTimeout,
      int maxInFlight,
      Clock clock,
      UnaryOperator<String> whyNotWritable) {
    this.whyNotWritable = whyNotWritable;
    this.producer =
        new KafkaProducer<>(
            BridgeProducerConfig.properties(passThrough, ackTimeout),
            new StringSerializer(),
            new ByteArraySerializer());
    this.ackTimeout = ackTimeout;
    this.inFlight = new Semaphore(maxInFlight);
    this.clock = clock;
    this.retries =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread thread = new Thread(r, "turnstile-kafka-retry");
              thread.setDaemon(true);
              return thread;
            });
  }

  @Override
  public CompletionStage<PublishedEvent> publish(
      String topic, String key, CloudEvent event, Map<String, String> headers) {
    String notWritable = whyNotWritable.apply(topic);
    if (notWritable != null) {
      return CompletableFuture.failedFuture(
          new PublishException(
              Reason.UNAVAILABLE, "topic " + topic + " is not as declared: " + notWritable, null));
    }
    if (!inFlight.tryAcquire()) {
      return CompletableFuture.failedFuture(
          new PublishException(Reason.SATURATED, "too many writes in flight", null));
    }
    CompletableFuture<PublishedEvent> result = new CompletableFuture<>();
    if (closed) {
      inFlight.release();
      return CompletableFuture.failedFuture(closedException());
    }
    submit(new Sequence(List.of(record(topic, key, event, headers)), List.of(result)));
    return bounded(result);
  }

  /**
   * Takes the permits of the whole sequence at once and sends it in order, nothing of it before
   * what precedes it (with idempotence, the broker keeps a producer's order within a partition).
   */
  @Override
  public List<CompletionStage<PublishedEvent>> publishAll(
      String topic, String key, List<CloudEvent> events) {
    int count = events.size();
    List<CompletableFuture<PublishedEvent>> results = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      results.add(new CompletableFuture<>());
    }
    if (count == 0) {
      return List.of();
    }
    if (!inFlight.tryAcquire(count)) {
      PublishException saturated =
          new PublishException(
              Reason.SATURATED, count + " writes do not fit in those allowed in flight now", null);
      results.forEach(result -> result.completeExceptionally(saturated));
      return List.copyOf(results);
    }
    if (closed) {
      inFlight.release(count);
      PublishException closedNow = closedException();
      results.forEach(result -> result.completeExceptionally(closedNow));
      return List.copyOf(results);
    }
    List<ProducerRecord<String, byte[]>> records = new ArrayList<>(count);
    events.forEach(event -> records.add(record(topic, key, event, Map.of())));
    submit(new Sequence(records, results));
    return boundedAll(results);
  }

  /** Sends a sequence now, or queues it behind its topic's backlog so that nothing overtakes it. */
  private void submit(Sequence sequence) {
    synchronized (order) {
      ArrayDeque<Sequence> backlog = backlogs.get(sequence.topic());
      if (backlog == null && sequence.sendRest()) {
        return;
      }
      backlogs.computeIfAbsent(sequence.topic(), topic -> new ArrayDeque<>()).add(sequence);
      if (closed) {
        failBacklogs();
      } else {
        scheduleDrain();
      }
    }
  }

  /** On the retry thread: sends each topic's backlog in order until Kafka cannot take a record. */
  private void drain() {
    synchronized (order) {
      drainScheduled = false;
      Iterator<ArrayDeque<Sequence>> topics = backlogs.values().iterator();
      while (topics.hasNext()) {
        ArrayDeque<Sequence> backlog = topics.next();
        while (!backlog.isEmpty() && backlog.peek().sendRest()) {
          backlog.poll();
        }
        if (backlog.isEmpty()) {
          topics.remove();
        }
      }
      if (backlogs.isEmpty()) {
        retryMs = RETRY_MS;
      } else {
        retryMs = Math.min(MAX_RETRY_MS, retryMs * 2);
        scheduleDrain();
      }
    }
  }

  private void scheduleDrain() {
    if (drainScheduled) {
      return;
    }
    try {
      retries.schedule(this::drain, retryMs, TimeUnit.MILLISECONDS);
      drainScheduled = true;
    } catch (RejectedExecutionException e) {
      failBacklogs();
    }
  }

  private void failBacklogs() {
    PublishException closedNow = closedException();
    backlogs.values().forEach(backlog -> backlog.forEach(sequence -> sequence.fail(closedNow)));
    backlogs.clear();
  }

  /**
   * Records to send in order, each with its result; {@link #sendRest} goes on from the first not
   * yet taken. Used under {@link #order} only.
   */
  private final class Sequence {
    private final List<ProducerRecord<String, byte[]>> records;
    private final List<CompletableFuture<PublishedEvent>> results;
    private int next;

    /** True only while this sequence's thread is inside {@code producer.send}. */
    private boolean sending;

    Sequence(
        List<ProducerRecord<String, byte[]>> records,
        List<CompletableFuture<PublishedEvent>> results) {
      this.records = records;
      this.results = results;
    }

    String topic() {
      return records.get(0).topic();
    }

    /** Sends from the first record not taken yet; false when Kafka could not take one now. */
    boolean sendRest() {
      Thread caller = Thread.currentThread();
      while (next < records.size()) {
        CompletableFuture<PublishedEvent> into = results.get(next);
        if (into.isDone()) {
          // Timed out while waiting for a retry: the caller has its answer already.
          inFlight.release();
          next++;
          continue;
        }
        boolean[] notTaken = new boolean[1];
        sending = true;
        try {
          producer.send(
              records.get(next),
              (metadata, error) -> {
                if (sending && Thread.currentThread() == caller && wouldHaveBlocked(error)) {
                  // Failed inside send(): Kafka would have blocked. Not taken, not written.
                  notTaken[0] = true;
                  return;
                }
                inFlight.release();
                complete(into, metadata, error);
              });
        } catch (RuntimeException e) {
          inFlight.release();
          complete(into, null, e);
        } finally {
          sending = false;
        }
        if (notTaken[0]) {
          return false;
        }
        next++;
      }
      return true;
    }

    /** Fails what was not sent yet. */
    void fail(PublishException failure) {
      for (; next < records.size(); next++) {
        inFlight.release();
        results.get(next).completeExceptionally(failure);
      }
    }
  }

  /**
   * Whether a send's error means Kafka could not take the record yet: its {@code TimeoutException},
   * raised inside {@code send()} with {@code max.block.ms=0} for missing metadata or a full buffer,
   * unless the metadata's own error says a retry cannot help (the broker refuses the bridge the
   * topic, or the name is invalid).
   */
  private boolean wouldHaveBlocked(Exception error) {
    if (closed || !(error instanceof org.apache.kafka.common.errors.TimeoutException)) {
      return false;
    }
    Throwable cause = error.getCause();
    return !(cause instanceof AuthorizationException
        || cause instanceof AuthenticationException
        || cause instanceof InvalidTopicException);
  }

  private ProducerRecord<String, byte[]> record(
      String topic, String key, CloudEvent event, Map<String, String> headers) {
    ProducerRecord<String, byte[]> record =
        KafkaMessageFactory.createWriter(topic, null, clock.millis(), key).writeBinary(event);
    headers.forEach(
        (name, value) -> record.headers().add(name, value.getBytes(StandardCharsets.UTF_8)));
    return record;
  }

  /** The wait for one ack, bounded by the ack timeout. */
  private CompletionStage<PublishedEvent> bounded(CompletableFuture<PublishedEvent> result) {
    return result
        .orTimeout(ackTimeout.toMillis(), TimeUnit.MILLISECONDS)
        .exceptionallyCompose(
            failure ->
                CompletableFuture.failedFuture(
                    failure instanceof TimeoutException
                        ? new PublishException(
                            Reason.UNAVAILABLE, "no ack within " + ackTimeout, failure)
                        : failure));
  }

  /**
   * The waits for a sequence's acks, bounded by the ack timeout as {@link #bounded} bounds one,
   * with one timer for the sequence: a timer per record cost a hundred schedules and cancels in the
   * shared delay queue for a batch of a hundred, all sent at the same moment.
   */
  private List<CompletionStage<PublishedEvent>> boundedAll(
      List<CompletableFuture<PublishedEvent>> results) {
    CompletableFuture.allOf(results.toArray(CompletableFuture<?>[]::new))
        .orTimeout(ackTimeout.toMillis(), TimeUnit.MILLISECONDS)
        .whenComplete(
            (all, failure) -> {
              if (failure instanceof TimeoutException) {
                PublishException late =
                    new PublishException(
                        Reason.UNAVAILABLE, "no ack within " + ackTimeout, failure);
                results.forEach(result -> result.completeExceptionally(late));
              }
            });
    return List.copyOf(results);
  }

  private static PublishException closedException() {
    return new PublishException(Reason.UNAVAILABLE, "the publisher is closed", null);
  }

  private static void complete(
      CompletableFuture<PublishedEvent> into, RecordMetadata metadata, Exception error) {
    if (error instanceof org.apache.kafka.common.errors.TimeoutException
        && error.getCause() instanceof Exception cause
        && !(cause instanceof org.apache.kafka.common.errors.TimeoutException)) {
      // The metadata's own error (authorization, an invalid name) says more than the timeout.
      error = cause;
    }
    if (error == null) {
      into.complete(new PublishedEvent(metadata.topic(), metadata.partition(), metadata.offset()));
    } else {
      into.completeExceptionally(toPublishException(error));
    }
  }

  /**
   * Only errors that are the record's own fault are {@link Reason#REJECTED}: it is too large, or
   * Kafka finds it invalid. Everything else (authorization, an unknown server error, a closed
   * producer, timeouts) is the environment's and {@link Reason#UNAVAILABLE}: the Service Bus source
   * pauses instead of dead-lettering good messages, and HTTP answers 503.
   */
  static PublishException toPublishException(Exception error) {
    if (error instanceof RecordTooLargeException
        || error instanceof InvalidRecordException
        || error instanceof SerializationException) {
      LOG.warn("Kafka refused a record for good", error);
      return new PublishException(Reason.REJECTED, "Kafka refused the record: " + error, error);
    }
    if (error instanceof AuthorizationException || error instanceof AuthenticationException) {
      warnRefusedPrincipal(error);
    }
    return new PublishException(
        Reason.UNAVAILABLE, "Kafka did not take the write: " + error, error);
  }

  private static final AtomicLong LAST_PRINCIPAL_WARNING = new AtomicLong();

  /**
   * A principal the broker refuses is a deployment fault a retry does not fix: said at WARN (at
   * most once a minute, not once per request), since the devices only see 503s and readiness, which
   * describes topics, stays up.
   */
  private static void warnRefusedPrincipal(Exception error) {
    long now = System.nanoTime();
    long last = LAST_PRINCIPAL_WARNING.get();
    if ((last == 0 || now - last > TimeUnit.MINUTES.toNanos(1))
        && LAST_PRINCIPAL_WARNING.compareAndSet(last, now)) {
      LOG.warn(
          "Kafka refused the bridge's principal ({}): check its ACLs (Write, Describe on the raw"
              + " topics; k8s/components/strimzi/kafkauser-bridge.yaml) and credentials",
          error.toString());
    }
  }

  /**
   * Exposes the producer's own metrics (record send rate, request latency, buffer use, errors) as
   * {@code kafka.producer.*} meters in {@code registry}; they go when the publisher closes.
   */
  public void bindMetrics(MeterRegistry registry) {
    KafkaClientMetrics metrics = new KafkaClientMetrics(producer);
    metrics.bindTo(registry);
    clientMetrics = metrics;
  }

  /** Stops taking writes, waits up to {@code timeout} for those in flight, closes the producer. */
  public void close(Duration timeout) {
    closed = true;
    retries.shutdownNow();
    synchronized (order) {
      failBacklogs();
    }
    producer.close(timeout);
    if (clientMetrics != null) {
      clientMetrics.close();
    }
  }

  @Override
  public void close() {
    close(ackTimeout);
  }
}
