package dev.turnstile.bridge.port.in;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.concurrent.CompletionStage;

/**
 * Use case: accept one event reported by a field device and make it durable on {@code
 * device-events.raw.v1}.
 *
 * <p>The stage completes with {@link Accepted} only once Kafka acknowledged the write, or with
 * {@link Duplicate} when the same {@code (deviceId, eventId)} was acknowledged recently (nothing is
 * written then). It fails with {@link InvalidDeviceEventException} for input that breaks a rule
 * (nothing is written), or with a {@link dev.turnstile.bridge.port.out.PublishException} when the
 * write was not acknowledged.
 */
public interface AcceptDeviceEventUseCase {

  CompletionStage<Outcome> accept(AcceptDeviceEventCommand command);

  /**
   * The request as the device sent it, already parsed from JSON but not yet checked.
   *
   * @param deviceId from the URL path, 1..128 of {@code [A-Za-z0-9._~:-]}
   * @param eventId device-generated, stable across retries
   * @param type {@code Started} or {@code Finished}
   * @param occurredAt RFC 3339 timestamp with an offset, the device's clock
   * @param sessionRef optional
   * @param attributes optional JSON object, carried through unchanged
   */
  record AcceptDeviceEventCommand(
      String deviceId,
      String eventId,
      String type,
      String occurredAt,
      String sessionRef,
      JsonNode attributes) {}

  /** What became of an accepted request. */
  sealed interface Outcome permits Accepted, Duplicate {
    String eventId();
  }

  /** Written and acknowledged at these coordinates. */
  record Accepted(String eventId, String topic, int partition, long offset) implements Outcome {}

  /**
   * Acknowledged recently already; not written again. The first write stands.
   *
   * @param conflict the repeat's content (type, occurredAt, sessionRef, attributes) differs from
   *     the first one's: the device reused an eventId, which it should not
   */
  record Duplicate(String eventId, boolean conflict) implements Outcome {}

  /**
   * One broken rule.
   *
   * @param pointer JSON pointer into the request body ({@code ""} for the whole body)
   * @param keyword the rule, a JSON Schema keyword where one fits (e.g. {@code format})
   * @param message human-readable
   */
  record Violation(String pointer, String keyword, String message) {}

  /** The request breaks a rule; nothing was written. */
  final class InvalidDeviceEventException extends RuntimeException {
    private final transient List<Violation> violations;

    public InvalidDeviceEventException(List<Violation> violations) {
      super("invalid device event: " + violations);
      this.violations = List.copyOf(violations);
    }

    public List<Violation> violations() {
      return violations;
    }
  }
}
