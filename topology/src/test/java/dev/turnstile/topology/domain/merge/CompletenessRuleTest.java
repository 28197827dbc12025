package dev.turnstile.topology.domain.merge;

import static dev.turnstile.topology.domain.merge.JsonMergePatchTest.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class CompletenessRuleTest {

  private static final PostMergeStep RULE = CompletenessRule.settledChargingSession();

  /** Row 3390011-like: a closed session merged with its billing record, through MergeState. */
  private static MergeResult merge(String session, String billing) {
    MergeState state = MergeState.empty("3390011", MergeState.DEFAULT_MAX_PATCHES);
    state =
        state
            .apply(
                Patch.of(
                    MergeVersion.eventTime(
                        Instant.parse("2014-11-18T17:00:00Z"), "device/station-1", "s-3390011"),
                    json(session)))
            .state();
    if (billing != null) {
      state =
          state
              .apply(
                  Patch.of(
                      MergeVersion.sequence(17, "servicebus/billing", "b-3390011"), json(billing)))
              .state();
    }
    return state.result().orElseThrow();
  }

  private static final String SESSION =
      """
      {"station":"station-1","startedAt":"2014-11-18T15:40:26Z","endedAt":"2014-11-18T17:11:04Z",
       "durationMillis":5438000,"connector":1}
      """;

  @Test
  void aCompleteDocumentGivesASettledSessionWithDerivedFields() {
    MergeResult result =
        merge(
            SESSION,
            "{\"sessionId\":\"3390011\",\"userId\":\"u-35897499\",\"kwhTotal\":6.504,\"dollars\":2.37}");

    JsonNode output = published(RULE.apply(result));

    assertThat(output)
        .isEqualTo(
            json("""
                {"mergeKey":"3390011","mergeResultId":"%s","station":"station-1",
                 "startedAt":"2014-11-18T15:40:26Z","endedAt":"2014-11-18T17:11:04Z",
                 "durationMillis":5438000,"kwhTotal":6.504,"dollars":2.37,"userId":"u-35897499"}
                """
                    .formatted(result.mergeResultId()))
                .<ObjectNode>require()
                .put("averagePowerKw", new BigDecimal("4.3057"))
                .put("pricePerKwh", new BigDecimal("0.3644")));
    // 6.504 kWh over 5,438,000 ms = 1.51055... h -> 4.30571... kW; 2.37 / 6.504 = 0.36439... $/kWh
  }

  @Test
  void zeroKwhLeavesBothDerivedFieldsOutAndZeroDurationLeavesPowerOut() {
    JsonNode noEnergy =
        published(RULE.apply(merge(SESSION, "{\"userId\":\"u\",\"kwhTotal\":0,\"dollars\":0}")));
    assertThat(noEnergy.has("averagePowerKw")).isFalse();
    assertThat(noEnergy.has("pricePerKwh")).isFalse();
    assertThat(noEnergy.get("kwhTotal").decimalValue()).isZero();

    JsonNode noDuration =
        published(
            RULE.apply(
                merge(
                    SESSION.replace("5438000", "0"),
                    "{\"userId\":\"u\",\"kwhTotal\":\"2.00\",\"dollars\":\"1.00\"}")));
    assertThat(noDuration.has("averagePowerKw")).isFalse();
    assertThat(noDuration.get("pricePerKwh").decimalValue()).isEqualByComparingTo("0.5");
  }

  @Test
  void anIncompleteDocumentEmitsNothing() {
    assertThat(RULE.apply(merge(SESSION, null))).isInstanceOf(PostMergeStep.Incomplete.class);
    assertThat(RULE.apply(merge(SESSION, "{\"userId\":null,\"kwhTotal\":6.504,\"dollars\":2.37}")))
        .isInstanceOf(PostMergeStep.Incomplete.class);
  }

  @Test
  void anIncompleteDocumentIsNotJudgedUntilItIsComplete() {
    String badStart = SESSION.replace("\"2014-11-18T15:40:26Z\"", "\"2026-11-30 08:00:00\"");
    assertThat(RULE.apply(merge(badStart, null))).isInstanceOf(PostMergeStep.Incomplete.class);
    assertThat(
            RULE.apply(merge(badStart, "{\"userId\":\"u\",\"kwhTotal\":6.504,\"dollars\":2.37}")))
        .isInstanceOf(PostMergeStep.Invalid.class);
  }

  @Test
  void aFieldItsOutputSchemaRefusesMakesTheResultInvalidWithItsPointer() {
    // Issue 8, case 6: each of these would have been copied into post-merge.v1 and broken it.
    String billing = "{\"userId\":\"u\",\"kwhTotal\":6.504,\"dollars\":2.37}";
    assertThat(
            RULE.apply(
                merge(
                    SESSION.replace("\"2014-11-18T15:40:26Z\"", "\"2026-11-30 08:00:00\""),
                    billing)))
        .isEqualTo(
            new PostMergeStep.Invalid(
                "/startedAt", "startedAt must be an RFC 3339 date-time with an offset"));
    assertThat(RULE.apply(merge(SESSION.replace("\"2014-11-18T15:40:26Z\"", "1e1000"), billing)))
        .isInstanceOf(PostMergeStep.Invalid.class)
        .extracting(o -> ((PostMergeStep.Invalid) o).pointer())
        .isEqualTo("/startedAt");
    assertThat(RULE.apply(merge(SESSION.replace("5438000", "1e400"), billing)))
        .isEqualTo(
            new PostMergeStep.Invalid(
                "/durationMillis",
                "durationMillis must be an integer from 0 to " + Long.MAX_VALUE));
    assertThat(RULE.apply(merge(SESSION.replace("5438000", "-1"), billing)))
        .isInstanceOf(PostMergeStep.Invalid.class);
    assertThat(RULE.apply(merge(SESSION, billing.replace("6.504", "1e400"))))
        .isEqualTo(
            new PostMergeStep.Invalid(
                "/kwhTotal", "kwhTotal must be a string or a number within 10^±64"));
    assertThat(RULE.apply(merge(SESSION, billing.replace("\"u\"", "{\"id\":1}"))))
        .isInstanceOf(PostMergeStep.Invalid.class);
  }

  @Test
  void roundsHalfEvenToTheConfiguredScale() {
    CompletenessRule rule =
        new CompletenessRule(
            new CompletenessRule.Config(
                List.of(
                    CompletenessRule.RequiredField.of(
                        "a", "/a", CompletenessRule.FieldType.NUMBER_OR_STRING),
                    CompletenessRule.RequiredField.of(
                        "b", "/b", CompletenessRule.FieldType.NUMBER_OR_STRING)),
                List.of(
                    new CompletenessRule.DerivedField("q", "a", "b", BigDecimal.ONE, List.of())),
                1,
                RoundingMode.HALF_EVEN));
    MergeResult result = merge("{\"a\":0.25,\"b\":1}", null);

    JsonNode output = published(rule.apply(result));

    assertThat(output.get("q").decimalValue()).isEqualByComparingTo("0.2");
  }

  private static JsonNode published(PostMergeStep.Outcome outcome) {
    assertThat(outcome).isInstanceOf(PostMergeStep.Publish.class);
    return ((PostMergeStep.Publish) outcome).output();
  }

  @Test
  void refusesADerivedFieldOverAFieldThatIsNotRequired() {
    assertThatIllegalArgumentException()
        .isThrownBy(
            () ->
                new CompletenessRule.Config(
                    List.of(
                        CompletenessRule.RequiredField.of(
                            "a", "/a", CompletenessRule.FieldType.NUMBER_OR_STRING)),
                    List.of(
                        new CompletenessRule.DerivedField(
                            "q", "a", "b", BigDecimal.ONE, List.of())),
                    4,
                    RoundingMode.HALF_EVEN))
        .withMessageContaining("b");
  }
}
