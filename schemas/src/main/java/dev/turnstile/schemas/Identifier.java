package dev.turnstile.schemas;

import java.util.regex.Pattern;

/**
 * The one rule for a device's identifiers ({@code deviceId}, {@code eventId}, {@code sessionRef}):
 * {@value #RULE}. An id made only of dots is excluded: {@code .} and {@code ..} are path segments
 * that URL normalisation removes, so such a device could never be addressed.
 *
 * <p>The JSON Schemas spell the same rule as {@code $defs/identifier}; {@code
 * DeviceEventRulesAgreementTest} keeps the two in step.
 */
public final class Identifier {

  /** The rule in words, for error messages. */
  public static final String RULE = "1..128 of [A-Za-z0-9._~:-], not only dots";

  private static final Pattern PATTERN = Pattern.compile("(?!\\.+$)[A-Za-z0-9._~:-]{1,128}");

  private Identifier() {}

  /** Whether {@code value} is a valid identifier; {@code null} is not. */
  public static boolean isValid(String value) {
    return value != null && PATTERN.matcher(value).matches();
  }
}
