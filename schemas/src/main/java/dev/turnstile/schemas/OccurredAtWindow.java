package dev.turnstile.schemas;

import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.Optional;

/**
 * The device timestamps a receiver finds plausible: from {@code earliest} up to its clock plus
 * {@code maxClockSkew}. Outside it a device's clock is broken (a year 0 or 9999 would open a
 * session lasting millennia downstream), so the event is refused rather than written.
 *
 * @param earliest the first accepted instant (replays of old reference data must still pass)
 * @param maxClockSkew how far ahead of the receiver's clock a device may be; not negative
 */
public record OccurredAtWindow(Instant earliest, Duration maxClockSkew) {

  /** 2000-01-01T00:00:00Z to one day ahead. */
  public static final OccurredAtWindow DEFAULT =
      new OccurredAtWindow(Instant.parse("2000-01-01T00:00:00Z"), Duration.ofDays(1));

  /**
   * @throws IllegalArgumentException if {@code maxClockSkew} is negative
   */
  public OccurredAtWindow {
    if (maxClockSkew.isNegative()) {
      throw new IllegalArgumentException("maxClockSkew must not be negative: " + maxClockSkew);
    }
  }

  /** Empty when inside the window at {@code now}; otherwise why not, naming the window. */
  public Optional<String> problem(OffsetDateTime occurredAt, Instant now) {
    Instant instant = occurredAt.toInstant();
    Instant latest = now.plus(maxClockSkew);
    if (!instant.isBefore(earliest) && !instant.isAfter(latest)) {
      return Optional.empty();
    }
    return Optional.of(
        "occurredAt must be between "
            + earliest
            + " and "
            + latest
            + " (the bridge's clock plus "
            + maxClockSkew.toMillis()
            + " ms), got "
            + occurredAt);
  }
}
