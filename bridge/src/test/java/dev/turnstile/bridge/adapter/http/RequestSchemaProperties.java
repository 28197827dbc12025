package dev.turnstile.bridge.adapter.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.turnstile.schemas.Json;
import dev.turnstile.schemas.Violation;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.AlphaChars;
import net.jqwik.api.constraints.NumericChars;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.constraints.StringLength;

/**
 * Whatever is wrong with a request's members (unknown ones, missing ones, wrong types), each
 * violation's message names its member at most once: a device reads it, so "foo property 'foo' is
 * not defined" is noise, and a message that names no member at all leaves the pointer to do it.
 */
class RequestSchemaProperties {

  private final RequestSchema schema = new RequestSchema();

  @Property(tries = 300)
  void aViolationNamesItsMemberAtMostOnce(
      @ForAll @Size(max = 3)
          List<@AlphaChars @NumericChars @StringLength(min = 1, max = 12) String> unknown,
      @ForAll @Size(max = 3)
          Set<@net.jqwik.api.constraints.IntRange(min = 0, max = 2) Integer> missing,
      @ForAll boolean sessionRefNotAString) {
    ObjectNode body =
        Json.mapper()
            .createObjectNode()
            .put("eventId", "e-1")
            .put("type", "Started")
            .put("occurredAt", "2014-11-18T15:40:26Z");
    // "zz" keeps an unknown member's name out of the validator's own words.
    unknown.forEach(name -> body.put("zz" + name, 1));
    List<String> required = List.of("eventId", "type", "occurredAt");
    missing.forEach(i -> body.remove(required.get(i)));
    if (sessionRefNotAString) {
      body.put("sessionRef", 42);
    }

    List<Violation> violations = schema.violations(body);

    assertThat(violations.isEmpty())
        .isEqualTo(unknown.isEmpty() && missing.isEmpty() && !sessionRefNotAString);
    for (Violation violation : violations) {
      String member = violation.pointer().substring(violation.pointer().lastIndexOf('/') + 1);
      Matcher named =
          Pattern.compile("\\b" + Pattern.quote(member) + "\\b").matcher(violation.message());
      int times = 0;
      while (named.find()) {
        times++;
      }
      assertThat(times).as(violation.toString()).isLessThanOrEqualTo(1);
    }
  }
}
