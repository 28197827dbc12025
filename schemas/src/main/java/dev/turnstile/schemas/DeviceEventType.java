package dev.turnstile.schemas;

import java.util.Arrays;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * What a device reports about a charging (or any) session: the closed set of device event types.
 *
 * <p>Adding a type is this constant, the {@code type} enum of {@code device-event-request.v1} and
 * {@code device-event.v1}, and golden samples: {@code DeviceEventRulesAgreementTest} fails until
 * the schemas list it, and every rule that acts on a type switches over it with a switch
 * expression, which does not compile until the new constant is handled.
 */
public enum DeviceEventType {
  /** The session started at {@code occurredAt}. */
  Started,
  /** The session ended at {@code occurredAt}. */
  Finished;

  /** The type named exactly {@code name} (case-sensitive), if any. */
  public static Optional<DeviceEventType> named(String name) {
    for (DeviceEventType type : values()) {
      if (type.name().equals(name)) {
        return Optional.of(type);
      }
    }
    return Optional.empty();
  }

  /** Every type's name in words, for error messages: {@code Started or Finished}. */
  public static String choices() {
    String[] names = Arrays.stream(values()).map(Enum::name).toArray(String[]::new);
    if (names.length == 1) {
      return names[0];
    }
    return Arrays.stream(names, 0, names.length - 1).collect(Collectors.joining(", "))
        + " or "
        + names[names.length - 1];
  }
}
