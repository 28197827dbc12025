package dev.turnstile.topology.domain.session;

import java.time.Duration;
import java.util.Objects;

/**
 * The rules' tunables. Which clock each one uses is part of the rule:
 *
 * <ul>
 *   <li>{@code reorderGrace} and {@code maxSessionDuration} run on <b>arrival time</b>: the
 *       bridge's receive time carried as the Kafka record timestamp, compared with the topology's
 *       wall clock by a punctuator. A device's own clock cannot expire anything early or keep it
 *       alive forever, and a replay of 2014 data behaves like live traffic.
 *   <li>"The exit may not precede the entry" and session durations use <b>device time</b> ({@code
 *       occurredAt}), which is what the device measured.
 * </ul>
 *
 * @param reorderGrace how long a {@code Finished} that arrived before its {@code Started} is held
 *     (default 1 hour)
 * @param maxSessionDuration how long a session may stay open after its {@code Started} arrived
 *     before it is expired (default 72 hours; the reference data's longest session is 55 hours)
 * @param maxHeldFinishesPerDevice bound on early {@code Finished} events held per device (default
 *     1,000); past it a new one is rejected with {@code REORDER_BUFFER_FULL}
 * @param endedSessionRetention how long (arrival time) an ended session reference is remembered, so
 *     a late event for it is rejected with a specific reason instead of opening a session that
 *     would never close (default 7 days, as the dedup retention)
 */
public record SessionPolicy(
    Duration reorderGrace,
    Duration maxSessionDuration,
    int maxHeldFinishesPerDevice,
    Duration endedSessionRetention) {

  public static final SessionPolicy DEFAULT =
      new SessionPolicy(Duration.ofHours(1), Duration.ofHours(72), 1_000, Duration.ofDays(7));

  public SessionPolicy {
    Objects.requireNonNull(reorderGrace, "reorderGrace");
    Objects.requireNonNull(maxSessionDuration, "maxSessionDuration");
    if (reorderGrace.isNegative()
        || maxSessionDuration.isNegative()
        || maxSessionDuration.isZero()) {
      throw new IllegalArgumentException("reorderGrace must be >= 0 and maxSessionDuration > 0");
    }
    Objects.requireNonNull(endedSessionRetention, "endedSessionRetention");
    if (maxHeldFinishesPerDevice < 0 || endedSessionRetention.isNegative()) {
      throw new IllegalArgumentException("bounds must be >= 0");
    }
  }
}
