package dev.turnstile.bridge.port.in;

import com.fasterxml.jackson.databind.JsonNode;
import dev.turnstile.schemas.AuthContext;
import dev.turnstile.schemas.DeviceEvent;
import dev.turnstile.schemas.DeviceEvent.AsSent;
import dev.turnstile.schemas.DeviceEventType;
import dev.turnstile.schemas.Identifier;
import dev.turnstile.schemas.Violation;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.concurrent.CompletionStage;

/**
 * Use case: accept one event reported by a field device and make it durable on {@code
 * device-events.raw.v1}.
 *
 * <p>The stage completes with {@link Accepted} only once Kafka acknowledged the write, or with
 * {@link Duplicate} when the same {@code (deviceId, eventId)} was acknowledged recently (nothing is
 * written then). The command arrives typed and valid ({@link AcceptDeviceEventCommand#read}); the
 * one rule left to the use case is its clock's: it fails with {@link InvalidDeviceEventException}
 * for an {@code occurredAt} outside the plausible window (nothing is written), or with a {@link
 * dev.turnstile.bridge.port.out.PublishException} when the write was not acknowledged.
 */
public interface AcceptDeviceEventUseCase {

  CompletionStage<Outcome> accept(AcceptDeviceEventCommand command);

  /**
   * Accepts one device's backlog, in order: each command is checked by the same rule as {@link
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
   * One device event as received, already typed and valid: built once, by {@link #read} from a
   * request body, and trusted from then on (the use case checks only what needs its clock: the
   * {@code occurredAt} window). Its constructor refuses values that break an event's rules, so no
   * invalid command exists.
   *
   * @param deviceId from the URL path, a {@link Identifier}
   * @param eventId device-generated, stable across retries, a {@link Identifier}
   * @param type what happened
   * @param occurredAt the device's clock, with the offset it sent
   * @param sessionRef a {@link Identifier}; {@code null} when not sent
   * @param attributes a JSON object carried through unchanged; {@code null} when not sent
   * @param sender who sent it, as authenticated ({@link AuthContext}), recorded on the record
   *     written; {@code null} when authentication is off (nothing recorded)
   * @throws IllegalArgumentException if an identifier breaks {@link Identifier#RULE}, {@code type}
   *     or {@code occurredAt} is null, or {@code attributes} is not an object
   */
  record AcceptDeviceEventCommand(
      String deviceId,
      String eventId,
      DeviceEventType type,
      OffsetDateTime occurredAt,
      String sessionRef,
      JsonNode attributes,
      AuthContext sender) {

    public AcceptDeviceEventCommand {
      require(Identifier.isValid(deviceId), "deviceId", deviceId);
      require(Identifier.isValid(eventId), "eventId", eventId);
      require(sessionRef == null || Identifier.isValid(sessionRef), "sessionRef", sessionRef);
      require(type != null, "type", null);
      require(occurredAt != null, "occurredAt", null);
      require(attributes == null || attributes.isObject(), "attributes", attributes);
    }

    /** A command with no sender known (authentication off). */
    public AcceptDeviceEventCommand(
        String deviceId,
        String eventId,
        DeviceEventType type,
        OffsetDateTime occurredAt,
        String sessionRef,
        JsonNode attributes) {
      this(deviceId, eventId, type, occurredAt, sessionRef, attributes, null);
    }

    /**
     * The command for one event of a request body, by the domain's rules ({@link
     * DeviceEvent#create}, whose violations point into the event): the one place where a device's
     * JSON becomes typed values. A body that passed the request schema breaks at most the {@code
     * occurredAt} rules java.time adds (e.g. a leap second).
     *
     * @param deviceId from the URL path
     * @param event the event as read by the strict reader, any JSON value
     * @param sender who sent it; {@code null} when authentication is off
     * @return the command, or the rules the event breaks (never both, never neither)
     */
    public static Read read(String deviceId, JsonNode event, AuthContext sender) {
      DeviceEvent.Checked checked =
          DeviceEvent.create(
              new AsSent(
                  deviceId,
                  text(event, "eventId"),
                  text(event, "type"),
                  text(event, "occurredAt"),
                  text(event, "sessionRef"),
                  event.get("attributes")),
              null,
              null);
      if (checked instanceof DeviceEvent.Invalid invalid) {
        return new Read(null, invalid.violations());
      }
      DeviceEvent valid = ((DeviceEvent.Valid) checked).event();
      return new Read(
          new AcceptDeviceEventCommand(
              valid.deviceId(),
              valid.eventId(),
              valid.type(),
              valid.occurredAt(),
              valid.sessionRef(),
              valid.attributes(),
              sender),
          List.of());
    }

    private static String text(JsonNode event, String name) {
      JsonNode value = event.get(name);
      return value == null || value.isNull() ? null : value.asText();
    }

    private static void require(boolean holds, String field, Object value) {
      if (!holds) {
        throw new IllegalArgumentException("invalid " + field + ": " + value);
      }
    }
  }

  /**
   * What {@link AcceptDeviceEventCommand#read} made of an event: the command, or the rules it
   * breaks.
   *
   * @param command {@code null} when {@code violations} is not empty
   * @param violations pointers into the event; empty when {@code command} is set
   */
  record Read(AcceptDeviceEventCommand command, List<Violation> violations) {
    public Read {
      violations = List.copyOf(violations);
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
   * Breaks the rules listed (the request schema, {@link DeviceEvent#create} or the {@code
   * occurredAt} window; pointers into the event itself); nothing was written.
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
