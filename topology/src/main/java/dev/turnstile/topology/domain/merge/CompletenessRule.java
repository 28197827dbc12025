package dev.turnstile.topology.domain.merge;

import com.fasterxml.jackson.core.JsonPointer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The default {@link PostMergeStep}: a merged document is published only once every required field
 * is present and of the type its output schema allows, as a flat object of those fields plus
 * derived ones.
 *
 * <p>Output shape: {@code mergeKey} and {@code mergeResultId} of the result, then each {@link
 * RequiredField} under its name with its value copied unchanged, then each {@link DerivedField}
 * that can be computed, as a JSON number.
 *
 * <p>Rules: a required field is missing when its JSON pointer (RFC 6901) resolves to nothing or to
 * {@code null}; one missing field means the document is incomplete and nothing is emitted, whatever
 * the present fields hold: types are checked only once every field is present, so an incomplete
 * document's verdict does not depend on the order of the fields (and costs no date parsing).
 * Derived values use {@link BigDecimal} from the fields' decimal text (never binary floating
 * point), are rounded to {@link Config#scale()} decimals with {@link Config#rounding()} (defaults 4
 * and {@code HALF_EVEN}), and are absent, never infinite or NaN, when an operand is not a number or
 * a zero-guarded operand is zero.
 */
public final class CompletenessRule implements PostMergeStep {

  /** Milliseconds per hour: converts {@code durationMillis} to hours in {@code averagePowerKw}. */
  private static final BigDecimal MILLIS_PER_HOUR = BigDecimal.valueOf(3_600_000L);

  private final Config config;

  public CompletenessRule(Config config) {
    this.config = Objects.requireNonNull(config, "config");
  }

  /** The rule with {@link Config#settledChargingSession()}. */
  public static CompletenessRule settledChargingSession() {
    return new CompletenessRule(Config.settledChargingSession());
  }

  @Override
  public Outcome apply(MergeResult result) {
    List<JsonNode> values = new ArrayList<>(config.required().size());
    for (RequiredField field : config.required()) {
      JsonNode value = result.document().at(field.pointer());
      if (value.isMissingNode() || value.isNull()) {
        return new Incomplete();
      }
      values.add(value);
    }
    Map<String, JsonNode> fields = new LinkedHashMap<>();
    for (int i = 0; i < values.size(); i++) {
      RequiredField field = config.required().get(i);
      Optional<String> problem = field.type().problem(values.get(i));
      if (problem.isPresent()) {
        return new Invalid(field.pointer().toString(), field.name() + " " + problem.get());
      }
      fields.put(field.name(), values.get(i));
    }
    ObjectNode output = JsonNodeFactory.instance.objectNode();
    output.put("mergeKey", result.mergeKey());
    output.put("mergeResultId", result.mergeResultId());
    fields.forEach((name, value) -> output.set(name, value.deepCopy()));
    for (DerivedField derived : config.derived()) {
      derive(derived, fields).ifPresent(value -> output.put(derived.name(), value));
    }
    return new Publish(output);
  }

  private Optional<BigDecimal> derive(DerivedField field, Map<String, JsonNode> fields) {
    Optional<BigDecimal> numerator = decimal(fields.get(field.numerator()));
    Optional<BigDecimal> denominator = decimal(fields.get(field.denominator()));
    if (numerator.isEmpty() || denominator.isEmpty() || denominator.get().signum() == 0) {
      return Optional.empty();
    }
    for (String guard : field.nonZero()) {
      if (decimal(fields.get(guard)).map(BigDecimal::signum).orElse(0) == 0) {
        return Optional.empty();
      }
    }
    return Optional.of(
        numerator
            .get()
            .multiply(field.multiplier())
            .divide(denominator.get(), config.scale(), config.rounding()));
  }

  /**
   * A JSON number, or a string holding one, within {@link #MAX_MAGNITUDE} decimal orders of
   * magnitude: {@code 1E-2147483647} or {@code 1E+10000000} would make a division throw or run for
   * seconds inside a transaction, so such a value counts as absent (no derived field) instead.
   */
  private static Optional<BigDecimal> decimal(JsonNode node) {
    if (node == null) {
      return Optional.empty();
    }
    BigDecimal value;
    if (node.isNumber()) {
      value = node.decimalValue();
    } else if (node.isTextual()) {
      try {
        value = new BigDecimal(node.textValue().trim());
      } catch (NumberFormatException e) {
        return Optional.empty();
      }
    } else {
      return Optional.empty();
    }
    return reasonable(value) ? Optional.of(value) : Optional.empty();
  }

  /** Bound on a decimal's scale and on its digits before the point, for derived fields. */
  static final int MAX_MAGNITUDE = 64;

  private static boolean reasonable(BigDecimal value) {
    int integerDigits = value.precision() - value.scale();
    return Math.abs(value.scale()) <= MAX_MAGNITUDE && Math.abs(integerDigits) <= MAX_MAGNITUDE;
  }

  /**
   * A field the output requires.
   *
   * @param name the member name in the output
   * @param pointer where to read it in the merged document (RFC 6901)
   * @param type what the output schema allows for it
   */
  public record RequiredField(String name, JsonPointer pointer, FieldType type) {

    public RequiredField {
      MergeVersion.requireText(name, "name");
      Objects.requireNonNull(pointer, "pointer");
      Objects.requireNonNull(type, "type");
    }

    /** Parses {@code pointer}, e.g. {@code /billing/kwhTotal}. */
    public static RequiredField of(String name, String pointer, FieldType type) {
      return new RequiredField(name, JsonPointer.compile(pointer), type);
    }
  }

  /**
   * What an output schema allows for a required field, checked before anything is published so that
   * no output breaks its schema whatever a source sent.
   */
  public enum FieldType {
    /** A JSON string. */
    STRING,
    /** An RFC 3339 date-time with an offset, as a JSON string. */
    DATE_TIME,
    /** A JSON integer from 0 to {@link Long#MAX_VALUE}. */
    NON_NEGATIVE_LONG,
    /** A JSON number within {@link #MAX_MAGNITUDE} orders of magnitude, or a JSON string. */
    NUMBER_OR_STRING;

    /** Why {@code value} does not fit, or empty when it does. */
    Optional<String> problem(JsonNode value) {
      return switch (this) {
        case STRING -> value.isTextual() ? Optional.empty() : Optional.of("must be a string");
        case DATE_TIME -> dateTimeProblem(value);
        case NON_NEGATIVE_LONG ->
            value.isIntegralNumber() && value.canConvertToLong() && value.longValue() >= 0
                ? Optional.empty()
                : Optional.of("must be an integer from 0 to " + Long.MAX_VALUE);
        case NUMBER_OR_STRING ->
            value.isTextual() || (value.isNumber() && reasonable(value.decimalValue()))
                ? Optional.empty()
                : Optional.of("must be a string or a number within 10^±" + MAX_MAGNITUDE);
      };
    }

    private static Optional<String> dateTimeProblem(JsonNode value) {
      if (value.isTextual()) {
        try {
          OffsetDateTime.parse(value.textValue());
          return Optional.empty();
        } catch (DateTimeParseException e) {
          // falls through
        }
      }
      return Optional.of("must be an RFC 3339 date-time with an offset");
    }
  }

  /**
   * A computed field: {@code numerator × multiplier ÷ denominator}, from required fields (by output
   * name). Absent when an operand is not numeric, the denominator is zero, or any field in {@code
   * nonZero} is zero.
   */
  public record DerivedField(
      String name,
      String numerator,
      String denominator,
      BigDecimal multiplier,
      List<String> nonZero) {

    public DerivedField {
      MergeVersion.requireText(name, "name");
      MergeVersion.requireText(numerator, "numerator");
      MergeVersion.requireText(denominator, "denominator");
      Objects.requireNonNull(multiplier, "multiplier");
      nonZero = List.copyOf(nonZero);
    }
  }

  /**
   * The rule's configuration.
   *
   * @param required fields that must all be present, in output order
   * @param derived fields computed from required ones; each operand must name a required field
   * @param scale decimals of derived values, default 4
   * @param rounding rounding of derived values, default {@link RoundingMode#HALF_EVEN} (banker's
   *     rounding: no upward drift when many rounded values are summed)
   * @throws IllegalArgumentException when a derived field names a field that is not required
   */
  public record Config(
      List<RequiredField> required, List<DerivedField> derived, int scale, RoundingMode rounding) {

    public Config {
      required = List.copyOf(required);
      derived = List.copyOf(derived);
      Objects.requireNonNull(rounding, "rounding");
      List<String> names = required.stream().map(RequiredField::name).toList();
      for (DerivedField field : derived) {
        for (String operand : operands(field)) {
          if (!names.contains(operand)) {
            throw new IllegalArgumentException(
                "derived field %s uses %s, which is not a required field"
                    .formatted(field.name(), operand));
          }
        }
      }
    }

    /**
     * A settled EV charging session, from a closed device session ({@code station, startedAt,
     * endedAt, durationMillis}) merged with its billing record ({@code userId, kwhTotal, dollars}).
     * Derived: {@code averagePowerKw} = kWh ÷ hours (absent when kWh or duration is 0: a session
     * that delivered nothing has no average power) and {@code pricePerKwh} = dollars ÷ kWh (absent
     * when kWh is 0); both 4 decimals, {@code HALF_EVEN}.
     */
    public static Config settledChargingSession() {
      return new Config(
          List.of(
              RequiredField.of("station", "/station", FieldType.STRING),
              RequiredField.of("startedAt", "/startedAt", FieldType.DATE_TIME),
              RequiredField.of("endedAt", "/endedAt", FieldType.DATE_TIME),
              RequiredField.of("durationMillis", "/durationMillis", FieldType.NON_NEGATIVE_LONG),
              RequiredField.of("kwhTotal", "/kwhTotal", FieldType.NUMBER_OR_STRING),
              RequiredField.of("dollars", "/dollars", FieldType.NUMBER_OR_STRING),
              RequiredField.of("userId", "/userId", FieldType.NUMBER_OR_STRING)),
          List.of(
              new DerivedField(
                  "averagePowerKw",
                  "kwhTotal",
                  "durationMillis",
                  MILLIS_PER_HOUR,
                  List.of("kwhTotal")),
              new DerivedField("pricePerKwh", "dollars", "kwhTotal", BigDecimal.ONE, List.of())),
          4,
          RoundingMode.HALF_EVEN);
    }

    private static List<String> operands(DerivedField field) {
      List<String> operands = new ArrayList<>(field.nonZero());
      operands.add(field.numerator());
      operands.add(field.denominator());
      return operands;
    }
  }
}
