package dev.turnstile.bridge.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;
import java.util.function.IntSupplier;

/**
 * Counts what became of device events: {@code turnstile.bridge.device.events} with tags {@code
 * outcome} (accepted, duplicate, rejected, unavailable) and {@code reason} ({@code none} where
 * there is none, so every series has the same tag keys as Prometheus wants).
 */
public final class BridgeMetrics {

  public static final String DEVICE_EVENTS = "turnstile.bridge.device.events";

  /** From handing a device event to the publisher to Kafka's answer; tag {@code outcome}. */
  public static final String KAFKA_ACK = "turnstile.bridge.device.kafka-ack";

  /** HTTP connections open now (a gauge). */
  public static final String HTTP_CONNECTIONS = "turnstile.bridge.http.connections";

  /**
   * Reloads of the HTTPS key material, tag {@code outcome}: {@code applied}, or {@code failed} (the
   * files changed but could not be used; the previous material stays).
   */
  public static final String HTTP_TLS_RELOADS = "turnstile.bridge.http.tls.reloads";

  /** When the served HTTPS certificate expires, in seconds since the epoch (a gauge). */
  public static final String HTTP_TLS_CERTIFICATE_EXPIRY =
      "turnstile.bridge.http.tls.certificate.expiry";

  /** The {@code cache} tag of the duplicate cache's meters. */
  public static final String DUPLICATE_CACHE = "duplicate-cache";

  private final MeterRegistry registry;

  /**
   * The counters of {@link #DEVICE_EVENTS} by outcome and reason, registered once: a lookup by name
   * and tags on every event cost a builder, a sorted tag list and the registry's map each time.
   */
  private final Map<String, Map<String, Counter>> deviceEvents = new ConcurrentHashMap<>();

  /** {@link #KAFKA_ACK} by outcome, registered at its first use as before (no series at zero). */
  private volatile Timer kafkaAcked;

  private volatile Timer kafkaFailed;

  public BridgeMetrics(MeterRegistry registry) {
    this.registry = registry;
  }

  public void accepted() {
    count("accepted", "none");
  }

  /**
   * Answered from the recent-accepted cache; {@code reason} is {@code none}, or {@code
   * conflicting-content} when the repeat's content differs from the first one's.
   */
  public void duplicate(String reason) {
    count("duplicate", reason);
  }

  /** Refused input; {@code reason} is a short kebab-case slug (e.g. {@code schema}). */
  public void rejected(String reason) {
    count("rejected", reason);
  }

  /** Not written for a reason a retry can fix ({@code saturated}, {@code unavailable}). */
  public void unavailable(String reason) {
    count("unavailable", reason);
  }

  /**
   * HTTP connections open now, counted across every event loop: {@code
   * turnstile.bridge.http.connections}.
   */
  public void openConnections(IntSupplier open) {
    Gauge.builder(HTTP_CONNECTIONS, open::getAsInt)
        .description("HTTP connections open now")
        .register(registry);
  }

  /**
   * HTTPS is on: registers {@link #HTTP_TLS_CERTIFICATE_EXPIRY} and both outcomes of {@link
   * #HTTP_TLS_RELOADS} at zero (an alert on {@code failed} then has a series from the start).
   *
   * @param epochSeconds the served certificate's {@code notAfter}, seconds since the epoch
   */
  public void tlsServed(java.util.function.DoubleSupplier epochSeconds) {
    Gauge.builder(
            HTTP_TLS_CERTIFICATE_EXPIRY,
            epochSeconds,
            java.util.function.DoubleSupplier::getAsDouble)
        .description("Expiry of the served HTTPS certificate, seconds since the epoch")
        .baseUnit("seconds")
        .strongReference(true)
        .register(registry);
    tlsReloads("applied");
    tlsReloads("failed");
  }

  /** One reload of the HTTPS key material: {@code applied} or {@code failed}. */
  public void tlsReload(String outcome) {
    tlsReloads(outcome).increment();
  }

  private Counter tlsReloads(String outcome) {
    return Counter.builder(HTTP_TLS_RELOADS)
        .description("Reloads of the HTTPS key material by outcome")
        .tag("outcome", outcome)
        .register(registry);
  }

  /** Starts timing one write; end it with {@link #kafkaAnswered}. */
  public Timer.Sample kafkaWriteStarted() {
    return Timer.start(registry);
  }

  /** Ends timing one write: {@code acked} or {@code failed}. */
  public void kafkaAnswered(Timer.Sample sample, boolean acked) {
    Timer timer = acked ? kafkaAcked : kafkaFailed;
    if (timer == null) {
      // Registering is idempotent, so two threads racing here get the same timer.
      timer = kafkaAck(registry, acked ? "acked" : "failed");
      if (acked) {
        kafkaAcked = timer;
      } else {
        kafkaFailed = timer;
      }
    }
    sample.stop(timer);
  }

  private static Timer kafkaAck(MeterRegistry registry, String outcome) {
    return Timer.builder(KAFKA_ACK)
        .description("Device events: from the write to Kafka's acknowledgement or failure")
        .tag("outcome", outcome)
        .register(registry);
  }

  /**
   * The duplicate cache's meters: {@code cache.gets}, {@code cache.puts}, {@code cache.evictions},
   * {@code cache.size} and {@code cache.hit.ratio}, tagged {@code cache=duplicate-cache}.
   *
   * @param bindTo binds the cache's meters to a registry under a cache name
   */
  public void bindDuplicateCache(BiConsumer<MeterRegistry, String> bindTo) {
    bindTo.accept(registry, DUPLICATE_CACHE);
  }

  private void count(String outcome, String reason) {
    counter(outcome, reason).increment();
  }

  private Counter counter(String outcome, String reason) {
    return deviceEvents
        .computeIfAbsent(outcome, o -> new ConcurrentHashMap<>())
        .computeIfAbsent(
            reason,
            r ->
                Counter.builder(DEVICE_EVENTS)
                    .description("Device events by outcome")
                    .tag("outcome", outcome)
                    .tag("reason", r)
                    .register(registry));
  }
}
