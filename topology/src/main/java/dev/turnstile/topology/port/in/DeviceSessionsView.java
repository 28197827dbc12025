package dev.turnstile.topology.port.in;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.List;

/**
 * One device's sessions as the topology holds them now; JSON per {@code
 * device-sessions-view.v1.schema.json}.
 *
 * @param deviceId the device
 * @param asOf when the serving instance read its state (its wall clock)
 * @param open open sessions in the order they opened
 * @param recentlyEnded ended sessions that carried a {@code sessionRef} and are still remembered
 *     ({@code topology.session.ended-retention-ms}), newest first, at most {@link #MAX_ENDED}
 */
public record DeviceSessionsView(
    String deviceId, Instant asOf, List<OpenSession> open, List<EndedSession> recentlyEnded) {

  /** Most ended sessions one answer lists. */
  public static final int MAX_ENDED = 50;

  public DeviceSessionsView {
    open = List.copyOf(open);
    recentlyEnded = List.copyOf(recentlyEnded);
  }

  /**
   * An open session.
   *
   * @param sessionId deterministic id, as on {@code device-sessions.v1}
   * @param sessionRef the device's reference, or null (left out of the JSON)
   * @param startEventId the {@code Started} event's id
   * @param startedAt device time of the {@code Started} event, with the device's offset
   * @param openedAt when the {@code Started} event arrived (record time); expiry counts from it
   * @param openForMs {@code asOf - openedAt} in milliseconds, at least 0
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record OpenSession(
      String sessionId,
      String sessionRef,
      String startEventId,
      OffsetDateTime startedAt,
      Instant openedAt,
      long openForMs) {}

  /**
   * An ended session, as its slot in {@code device-state-store} remembers it.
   *
   * @param sessionRef the device's reference
   * @param outcome how it ended: {@code Closed} or {@code Expired}
   * @param endedAt when the event (or the expiry punctuation) that ended it was processed, in
   *     record time
   */
  public record EndedSession(String sessionRef, String outcome, Instant endedAt) {}
}
