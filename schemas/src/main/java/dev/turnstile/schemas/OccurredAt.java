package dev.turnstile.schemas;

import java.time.DateTimeException;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
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
    OffsetDateTime canonical = parseCanonical(value);
    if (canonical != null) {
      return Optional.of(canonical);
    }
    try {
      return Optional.of(
          OffsetDateTime.parse(
              value.toUpperCase(Locale.ROOT), DateTimeFormatter.ISO_OFFSET_DATE_TIME));
    } catch (DateTimeParseException e) {
      return Optional.empty();
    }
  }

  /**
   * {@code value} when it has the one shape Turnstile itself writes, {@code
   * yyyy-MM-ddTHH:mm:ss[.fraction](Z|+hh:mm|-hh:mm)} with 1 to 9 fraction digits and a valid date
   * and time, parsed without a {@link DateTimeFormatter}; else null, and the caller parses it with
   * {@link DateTimeFormatter#ISO_OFFSET_DATE_TIME}, which gives the same value for every string of
   * this shape (java.time's text parsing costs microseconds, and every event has a time).
   */
  public static OffsetDateTime parseCanonical(String value) {
    int length = value.length();
    if (length < 20
        || value.charAt(4) != '-'
        || value.charAt(7) != '-'
        || value.charAt(10) != 'T'
        || value.charAt(13) != ':'
        || value.charAt(16) != ':') {
      return null;
    }
    int year = digits(value, 0, 4);
    int month = digits(value, 5, 2);
    int day = digits(value, 8, 2);
    int hour = digits(value, 11, 2);
    int minute = digits(value, 14, 2);
    int second = digits(value, 17, 2);
    int i = 19;
    int nano = 0;
    if (value.charAt(i) == '.') {
      int from = ++i;
      while (i < length && i - from < 9 && isDigit(value.charAt(i))) {
        nano = nano * 10 + (value.charAt(i) - '0');
        i++;
      }
      if (i == from || (i < length && isDigit(value.charAt(i)))) {
        return null;
      }
      for (int scale = i - from; scale < 9; scale++) {
        nano *= 10;
      }
    }
    ZoneOffset offset = offset(value, i);
    if (year < 0
        || month < 0
        || day < 0
        || hour < 0
        || minute < 0
        || second < 0
        || offset == null) {
      return null;
    }
    try {
      return OffsetDateTime.of(year, month, day, hour, minute, second, nano, offset);
    } catch (DateTimeException e) {
      return null;
    }
  }

  private static ZoneOffset offset(String value, int at) {
    int rest = value.length() - at;
    if (rest == 1 && value.charAt(at) == 'Z') {
      return ZoneOffset.UTC;
    }
    if (rest != 6 || value.charAt(at + 3) != ':') {
      return null;
    }
    char sign = value.charAt(at);
    int hours = digits(value, at + 1, 2);
    int minutes = digits(value, at + 4, 2);
    if ((sign != '+' && sign != '-') || hours < 0 || minutes < 0 || hours > 18 || minutes > 59) {
      return null;
    }
    try {
      return sign == '+'
          ? ZoneOffset.ofHoursMinutes(hours, minutes)
          : ZoneOffset.ofHoursMinutes(-hours, -minutes);
    } catch (DateTimeException e) {
      return null;
    }
  }

  /** The decimal number of {@code count} digits at {@code from}, or −1. */
  private static int digits(String value, int from, int count) {
    int n = 0;
    for (int i = from; i < from + count; i++) {
      char c = value.charAt(i);
      if (!isDigit(c)) {
        return -1;
      }
      n = n * 10 + (c - '0');
    }
    return n;
  }

  private static boolean isDigit(char c) {
    return c >= '0' && c <= '9';
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
