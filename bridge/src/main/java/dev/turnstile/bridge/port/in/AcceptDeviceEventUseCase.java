package dev.turnstile.bridge.port.in;

import com.fasterxml.jackson.databind.JsonNode;
import dev.turnstile.schemas.AuthContext;
import dev.turnstile.schemas.Violation;
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
   * Accepts one device's backlog, in order: each command is checked by the same rules as {@link
   * #accept}, and those that pass and were not acknowledged recently (nor earlier in this batch)
   * are written as one sequence (same key, same producer, in the given order), so they keep their
   * order on the partition.
   *
   * <p>The stage completes once every write is acknowledged, with one outcome per command at its
   * index: {@link Accepted}, {@link Duplicate}, {@link Invalid} (a broken rule; not written) or
   * {@link NotWritten} (Kafka refused that record for good). It fails with a retriable {@link
   * dev.turnstile.bridge.port.out.PublishException} when any write was not acknowledged: the batch
   * as a whole was not written and may be sent again (what was acknowledged is then a duplicate).
   *
   * @param commands one device's events, all with the same {@code deviceId}; at least one
   * @throws IllegalArgumentException if the commands are empty or name more than one device
   */
  CompletionStage<List<Outcome>> acceptAll(List<AcceptDeviceEventCommand> commands);

  /**
   * The request as the device sent it, already parsed from JSON but not yet checked.
   *
   * @param deviceId from the URL path, a {@link dev.turnstile.schemas.Identifier}
   * @param eventId device-generated, stable across retries
   * @param type a {@link dev.turnstile.schemas.DeviceEventType} name
   * @param occurredAt RFC 3339 timestamp with an offset, the device's clock
   * @param sessionRef optional
   * @param attributes optional JSON object, carried through unchanged
   * @param sender who sent it, as authenticated ({@link AuthContext}), recorded on the record
   *     written; {@code null} when authentication is off (nothing recorded)
   */
  record AcceptDeviceEventCommand(
      String deviceId,
      String eventId,
      String type,
      String occurredAt,
      String sessionRef,
      JsonNode attributes,
      AuthContext sender) {

    /** A command with no sender known (authentication off). */
    public AcceptDeviceEventCommand(
        String deviceId,
        String eventId,
        String type,
        String occurredAt,
        String sessionRef,
        JsonNode attributes) {
      this(deviceId, eventId, type, occurredAt, sessionRef, attributes, null);
    }
  }

  /**
   * What became of an event. {@link #accept} completes with {@link Accepted} or {@link Duplicate}
   * only (it fails for the others); {@link #acceptAll} reports every kind per event.
   */
  sealed interface Outcome permits Accepted, Duplicate, Invalid, NotWritten {
    /** The event's id as sent; {@code null} where it was missing. */
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
   * Breaks the rules listed ({@link dev.turnstile.schemas.DeviceEvent#create}, pointers into the
   * event itself); nothing was written.
   */
  record Invalid(String eventId, List<Violation> violations) implements Outcome {
    public Invalid {
      violations = List.copyOf(violations);
    }
  }

  /** Kafka refused this record for good (e.g. larger than the topic takes); not written. */
  record NotWritten(String eventId, String reason) implements Outcome {}

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
