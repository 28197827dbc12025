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
import java.util.Optional;
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

    JsonNode output = RULE.apply(result).orElseThrow();

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
        RULE.apply(merge(SESSION, "{\"userId\":\"u\",\"kwhTotal\":0,\"dollars\":0}")).orElseThrow();
    assertThat(noEnergy.has("averagePowerKw")).isFalse();
    assertThat(noEnergy.has("pricePerKwh")).isFalse();
    assertThat(noEnergy.get("kwhTotal").decimalValue()).isZero();

    JsonNode noDuration =
        RULE.apply(
                merge(
                    SESSION.replace("5438000", "0"),
                    "{\"userId\":\"u\",\"kwhTotal\":\"2.00\",\"dollars\":\"1.00\"}"))
            .orElseThrow();
    assertThat(noDuration.has("averagePowerKw")).isFalse();
    assertThat(noDuration.get("pricePerKwh").decimalValue()).isEqualByComparingTo("0.5");
  }

  @Test
  void anIncompleteDocumentEmitsNothing() {
    assertThat(RULE.apply(merge(SESSION, null))).isEmpty();
    assertThat(RULE.apply(merge(SESSION, "{\"userId\":null,\"kwhTotal\":6.504,\"dollars\":2.37}")))
        .isEmpty();
  }

  @Test
  void roundsHalfEvenToTheConfiguredScale() {
    CompletenessRule rule =
        new CompletenessRule(
            new CompletenessRule.Config(
                List.of(
                    CompletenessRule.RequiredField.of("a", "/a"),
                    CompletenessRule.RequiredField.of("b", "/b")),
                List.of(
                    new CompletenessRule.DerivedField("q", "a", "b", BigDecimal.ONE, List.of())),
                1,
                RoundingMode.HALF_EVEN));
    MergeResult result = merge("{\"a\":0.25,\"b\":1}", null);

    Optional<JsonNode> output = rule.apply(result);

    assertThat(output.orElseThrow().get("q").decimalValue()).isEqualByComparingTo("0.2");
  }

  @Test
  void refusesADerivedFieldOverAFieldThatIsNotRequired() {
    assertThatIllegalArgumentException()
        .isThrownBy(
            () ->
                new CompletenessRule.Config(
                    List.of(CompletenessRule.RequiredField.of("a", "/a")),
                    List.of(
                        new CompletenessRule.DerivedField(
                            "q", "a", "b", BigDecimal.ONE, List.of())),
                    4,
                    RoundingMode.HALF_EVEN))
        .withMessageContaining("b");
  }
}
