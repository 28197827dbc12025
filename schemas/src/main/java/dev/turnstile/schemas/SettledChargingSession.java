package dev.turnstile.schemas;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigDecimal;
import java.time.OffsetDateTime;

/**
 * A value of {@code post-merge.v1} (schema {@code post-merge.v1}) as the default post-merge step
 * publishes it: a closed charging session merged with its billing record, once every required field
 * is present. Key: {@code mergeKey}; {@code ce_id} is {@code mergeResultId}.
 *
 * <p>{@code kwhTotal}, {@code dollars} and {@code userId} are copied unchanged from the billing
 * record, which may send them as numbers or as strings, so they stay JSON values here; read a
 * number with {@link JsonNode#decimalValue()} or {@code new BigDecimal(node.asText())}.
 *
 * @param mergeKey the charging session's reference
 * @param mergeResultId the merge result this output came from (lower-case hex SHA-256)
 * @param station the device that ran the session
 * @param startedAt the session's start, the station's clock with its offset
 * @param endedAt the session's end, the station's clock with its offset
 * @param durationMillis {@code endedAt - startedAt}, milliseconds
 * @param kwhTotal energy delivered, kWh, as billed (JSON number or string)
 * @param dollars amount billed, USD (JSON number or string)
 * @param userId the billed user (JSON string or number)
 * @param averagePowerKw {@code kwhTotal} per hour, 4 decimals HALF_EVEN; null when kWh or duration
 *     is 0
 * @param pricePerKwh {@code dollars / kwhTotal}, 4 decimals HALF_EVEN; null when kWh is 0
 */
public record SettledChargingSession(
    String mergeKey,
    String mergeResultId,
    String station,
    OffsetDateTime startedAt,
    OffsetDateTime endedAt,
    long durationMillis,
    JsonNode kwhTotal,
    JsonNode dollars,
    JsonNode userId,
    BigDecimal averagePowerKw,
    BigDecimal pricePerKwh) {}
