package dev.turnstile.schemas;

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

  /** Longest identifier, in characters. */
  public static final int MAX_LENGTH = 128;

  private Identifier() {}

  /**
   * Whether {@code value} is a valid identifier; {@code null} is not. A loop over the characters,
   * not a regular expression: every event is checked, at the bridge and in the topology.
   */
  public static boolean isValid(String value) {
    return value != null && value.length() <= MAX_LENGTH && matchesPattern(value);
  }

  /**
   * Whether {@code value} matches {@code $defs/identifier}'s {@code pattern} alone, at any length
   * (the schema bounds the length apart, with {@code maxLength}): at least one character, each of
   * {@code [A-Za-z0-9._~:-]}, not only dots.
   */
  public static boolean matchesPattern(String value) {
    if (value.isEmpty()) {
      return false;
    }
    boolean onlyDots = true;
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      boolean allowed =
          (c >= 'A' && c <= 'Z')
              || (c >= 'a' && c <= 'z')
              || (c >= '0' && c <= '9')
              || c == '.'
              || c == '_'
              || c == '~'
              || c == ':'
              || c == '-';
      if (!allowed) {
        return false;
      }
      onlyDots &= c == '.';
    }
    return !onlyDots;
  }
}
