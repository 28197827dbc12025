package dev.turnstile.bridge.adapter.jsonschema;

import com.networknt.schema.regex.JDKRegularExpressionFactory;
import com.networknt.schema.regex.RegularExpression;
import com.networknt.schema.regex.RegularExpressionFactory;
import dev.turnstile.schemas.Identifier;
import java.util.Map;

/**
 * The {@code pattern}s of Turnstile's own request schemas matched by hand-written code, every other
 * pattern by {@code java.util.regex} (networknt's default). Every event's {@code eventId}, {@code
 * occurredAt} and {@code sessionRef} is matched: by {@code java.util.regex} that was 45% of the
 * validator's time, about 1 µs an event (bench bridge --profile, batches of 100).
 *
 * <p>Each matches what networknt's {@code java.util.regex} factory matches for the same pattern,
 * which reads {@code $} as the end of the input ({@code \z}), as ECMA-262, the dialect JSON Schema
 * names, does. {@code KnownPatternsTest} checks each against {@code java.util.regex} so read, on
 * generated strings.
 */
final class KnownPatterns implements RegularExpressionFactory {

  /** {@code $defs/identifier}: {@link Identifier#matchesPattern}. */
  static final String IDENTIFIER = "^(?!\\.+$)[A-Za-z0-9._~:-]+$";

  /** {@code occurredAt}'s shape: RFC 3339 {@code date-time}, 1 to 9 fraction digits. */
  static final String DATE_TIME =
      "^[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt][0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]{1,9})?([Zz]|[+-][0-9]{2}:[0-9]{2})$";

  static final Map<String, RegularExpression> MATCHERS =
      Map.of(IDENTIFIER, Identifier::matchesPattern, DATE_TIME, KnownPatterns::isDateTime);

  @Override
  public RegularExpression getRegularExpression(String regex) {
    RegularExpression known = MATCHERS.get(regex);
    return known != null
        ? known
        : JDKRegularExpressionFactory.getInstance().getRegularExpression(regex);
  }

  /** {@link #DATE_TIME}, character by character. */
  static boolean isDateTime(String s) {
    // yyyy-MM-ddTHH:mm:ss is 19 characters; the shortest offset, Z, one more.
    if (s.length() < 20
        || !digits(s, 0, 4)
        || s.charAt(4) != '-'
        || !digits(s, 5, 2)
        || s.charAt(7) != '-'
        || !digits(s, 8, 2)
        || (s.charAt(10) != 'T' && s.charAt(10) != 't')
        || !digits(s, 11, 2)
        || s.charAt(13) != ':'
        || !digits(s, 14, 2)
        || s.charAt(16) != ':'
        || !digits(s, 17, 2)) {
      return false;
    }
    int at = 19;
    if (s.charAt(at) == '.') {
      int from = ++at;
      while (at < s.length() && isDigit(s.charAt(at))) {
        at++;
      }
      if (at - from < 1 || at - from > 9 || at == s.length()) {
        return false;
      }
    }
    char offset = s.charAt(at);
    if (offset == 'Z' || offset == 'z') {
      return at + 1 == s.length();
    }
    return (offset == '+' || offset == '-')
        && at + 6 == s.length()
        && digits(s, at + 1, 2)
        && s.charAt(at + 3) == ':'
        && digits(s, at + 4, 2);
  }

  private static boolean digits(String s, int from, int count) {
    for (int i = from; i < from + count; i++) {
      if (!isDigit(s.charAt(i))) {
        return false;
      }
    }
    return true;
  }

  private static boolean isDigit(char c) {
    return c >= '0' && c <= '9';
  }
}
