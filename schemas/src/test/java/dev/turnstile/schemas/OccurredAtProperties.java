package dev.turnstile.schemas;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * {@link OccurredAt#parseCanonical} is a shortcut, never another rule: for any text it either gives
 * exactly what {@link DateTimeFormatter#ISO_OFFSET_DATE_TIME} gives, or declines (null) and leaves
 * the text to it.
 */
class OccurredAtProperties {

  @Property(tries = 2000)
  void theShortcutTakesEveryTimeAsJacksonWritesIt(@ForAll("times") OffsetDateTime time) {
    // Jackson's OffsetDateTime serializer writes ISO_OFFSET_DATE_TIME: what the bridge stores.
    String text = DateTimeFormatter.ISO_OFFSET_DATE_TIME.format(time);
    assertThat(OccurredAt.parseCanonical(text)).isEqualTo(time).isEqualTo(javaTime(text));
    assertThat(OccurredAt.parse(text)).hasValue(time);
  }

  @Property(tries = 3000)
  void theShortcutNeverAcceptsWhatJavaTimeRefusesNorReadsItOtherwise(
      @ForAll("nearlyTimes") String text) {
    OffsetDateTime shortcut = OccurredAt.parseCanonical(text);
    if (shortcut != null) {
      assertThat(shortcut).isEqualTo(javaTime(text));
    }
  }

  @Example
  void theFormsTheBridgeWritesTakeTheShortcut() {
    assertThat(OccurredAt.parseCanonical("2014-11-18T15:40:26-05:00"))
        .isEqualTo(OffsetDateTime.parse("2014-11-18T15:40:26-05:00"));
    assertThat(OccurredAt.parseCanonical("2026-08-03T10:15:30.123456789Z")).isNotNull();
    assertThat(OccurredAt.parseCanonical("2026-02-30T10:15:30Z")).isNull();
    assertThat(OccurredAt.parseCanonical("2026-08-03t10:15:30Z")).isNull();
    assertThat(OccurredAt.parseCanonical("2026-08-03T10:15:60Z")).isNull();
  }

  private static OffsetDateTime javaTime(String text) {
    try {
      return OffsetDateTime.parse(text, DateTimeFormatter.ISO_OFFSET_DATE_TIME);
    } catch (DateTimeParseException e) {
      return null;
    }
  }

  @Provide
  Arbitrary<OffsetDateTime> times() {
    return Combinators.combine(
            Arbitraries.longs().between(-62_000_000_000L, 250_000_000_000L),
            Arbitraries.oneOf(
                Arbitraries.just(0),
                Arbitraries.integers().between(0, 999).map(ms -> ms * 1_000_000),
                Arbitraries.integers().between(0, 999_999_999)),
            Arbitraries.integers().between(-18 * 60, 18 * 60).map(m -> m * 60))
        .as(
            (second, nano, offset) ->
                OffsetDateTime.ofInstant(
                    Instant.ofEpochSecond(second, nano), ZoneOffset.ofTotalSeconds(offset)));
  }

  /** Texts of the canonical shape with any digits, and small mutations of it. */
  @Provide
  Arbitrary<String> nearlyTimes() {
    net.jqwik.api.arbitraries.StringArbitrary digits =
        Arbitraries.strings().withCharRange('0', '9');
    Arbitrary<String> shaped =
        Combinators.combine(
                digits.ofLength(4),
                digits.ofLength(2),
                digits.ofLength(2),
                digits.ofLength(2),
                digits.ofLength(2),
                digits.ofLength(2),
                digits.ofMinLength(0).ofMaxLength(11),
                Arbitraries.of(
                    "Z", "+00:00", "-00:00", "+05:30", "-18:00", "+19:00", "+05:3", "z", ""))
            .as(
                (y, mo, d, h, mi, s, fraction, offset) ->
                    y
                        + "-"
                        + mo
                        + "-"
                        + d
                        + "T"
                        + h
                        + ":"
                        + mi
                        + ":"
                        + s
                        + (fraction.isEmpty() ? "" : "." + fraction)
                        + offset);
    return Arbitraries.oneOf(
        shaped,
        shaped.map(s -> s.replace('T', ' ')),
        shaped.map(s -> s.substring(0, Math.max(0, s.length() - 1))),
        Arbitraries.strings().withChars("0123456789-T:.Z+").ofMaxLength(32));
  }
}
