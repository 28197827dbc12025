package dev.turnstile.schemas;

import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The rule for a device's {@code occurredAt}: {@value #RULE}. A local time without its offset says
 * nothing about the instant, so it is refused; a leap second ({@code :60}) is refused with its own
 * explanation, since {@code java.time} cannot represent it.
 */
public final class OccurredAt {

  /** The form in words, for error messages. */
  public static final String RULE =
      "an RFC 3339 date-time with an offset, e.g. 2015-03-02T08:00:00-08:00";

  /** A leap second in an RFC 3339 time: {@code hh:mm:60}, fraction and offset as may follow. */
  private static final Pattern LEAP_SECOND = Pattern.compile(".*[Tt ]\\d{2}:\\d{2}:60(\\D.*)?$");

  private OccurredAt() {}

  /** {@code value} as an instant with its offset kept; empty if it is not one ({@link #RULE}). */
  public static Optional<OffsetDateTime> parse(String value) {
    if (value == null) {
      return Optional.empty();
    }
    try {
      return Optional.of(
          OffsetDateTime.parse(
              value.toUpperCase(Locale.ROOT), DateTimeFormatter.ISO_OFFSET_DATE_TIME));
    } catch (DateTimeParseException e) {
      return Optional.empty();
    }
  }

  /** Why {@code value} is not an acceptable {@code occurredAt}, for a value that is not one. */
  public static String problem(String value) {
    if (value != null && LEAP_SECOND.matcher(value).matches()) {
      return "occurredAt is a leap second (seconds 60), which java.time cannot represent: send"
          + " seconds 00..59 (e.g. 23:59:59), as "
          + RULE;
    }
    return "occurredAt must be " + RULE;
  }
}
