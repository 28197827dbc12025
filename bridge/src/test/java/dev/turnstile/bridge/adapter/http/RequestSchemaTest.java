package dev.turnstile.bridge.adapter.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.turnstile.schemas.Json;
import dev.turnstile.schemas.Violation;
import java.util.List;
import org.junit.jupiter.api.Test;

class RequestSchemaTest {

  private final RequestSchema schema = new RequestSchema();

  private static ObjectNode event(String eventId, String occurredAt) {
    return Json.mapper()
        .createObjectNode()
        .put("eventId", eventId)
        .put("type", "Started")
        .put("occurredAt", occurredAt);
  }

  @Test
  void identifierViolationsNameTheRuleIncludingOnlyDots() {
    for (String bad : List.of("..", ".", "bad id", "x".repeat(129), "")) {
      List<Violation> violations =
          schema.violations(event(bad, "2014-11-18T15:40:26Z").put("sessionRef", bad));

      assertThat(violations).as(bad).isNotEmpty();
      assertThat(violations)
          .as(bad)
          .extracting(Violation::pointer)
          .containsOnly("/eventId", "/sessionRef");
      assertThat(violations)
          .as(bad)
          .allSatisfy(
              v ->
                  assertThat(v.message())
                      .endsWith("must be 1..128 of [A-Za-z0-9._~:-], not only dots"));
    }
    assertThat(schema.violations(event("a.b", "2014-11-18T15:40:26Z"))).isEmpty();
  }

  @Test
  void aMemberViolationNamesTheMemberOnceAndPointsAtIt() {
    ObjectNode unknownMember = event("e", "2014-11-18T15:40:26Z").put("foo", 1);
    ObjectNode missingMember = event("e", "2014-11-18T15:40:26Z");
    missingMember.remove("type");

    for (ObjectNode body : List.of(unknownMember, missingMember)) {
      List<Violation> violations = schema.violations(body);
      assertThat(violations).as(body.toString()).hasSize(1);
      Violation violation = violations.get(0);
      String member = violation.pointer().substring(1);
      assertThat(List.of("/foo", "/type")).contains(violation.pointer());
      // Named once, by the validator's own words: never "foo property 'foo' ...".
      assertThat(violation.message())
          .as(violation.toString())
          .contains("'" + member + "'")
          .doesNotStartWith(member + " ");
    }
  }

  @Test
  void dateTimeViolationsShowTheExpectedForm() {
    List<Violation> violations = schema.violations(event("e", "2014-11-18 15:40"));

    assertThat(violations).isNotEmpty();
    assertThat(violations)
        .allSatisfy(
            v ->
                assertThat(v.message())
                    .contains("RFC 3339 date-time with an offset, e.g. 2015-03-02T08:00:00-08:00"));
  }
}
