package dev.turnstile.bridge.application;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * Counts what became of device events: {@code turnstile.bridge.device.events} with tags {@code
 * outcome} (accepted, duplicate, rejected, unavailable) and {@code reason} ({@code none} where
 * there is none, so every series has the same tag keys as Prometheus wants).
 */
public final class BridgeMetrics {

  static final String DEVICE_EVENTS = "turnstile.bridge.device.events";

  private final MeterRegistry registry;

  public BridgeMetrics(MeterRegistry registry) {
    this.registry = registry;
  }

  public void accepted() {
    count("accepted", "none");
  }

  public void duplicate() {
    count("duplicate", "none");
  }

  /** Refused input; {@code reason} is a short kebab-case slug (e.g. {@code schema}). */
  public void rejected(String reason) {
    count("rejected", reason);
  }

  /** Not written for a reason a retry can fix ({@code saturated}, {@code unavailable}). */
  public void unavailable(String reason) {
    count("unavailable", reason);
  }

  private void count(String outcome, String reason) {
    Counter.builder(DEVICE_EVENTS)
        .description("Device events by outcome")
        .tag("outcome", outcome)
        .tag("reason", reason)
        .register(registry)
        .increment();
  }
}
