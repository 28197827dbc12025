package dev.turnstile.local;

import java.math.BigDecimal;
import java.time.LocalDateTime;

/**
 * One row of the EV workplace charging dataset ({@code data/README.md}): a session on a station.
 *
 * @param sessionId unique 7-digit id; becomes the {@code sessionRef} and the merge key
 * @param stationId the charging station; becomes the {@code deviceId}
 * @param created session start, local time without zone, year already fixed ({@code 0014} = 2014)
 * @param ended session end, same
 * @param kwhTotal energy delivered, kWh
 * @param dollars amount charged, USD
 */
public record ChargingSession(
    String sessionId,
    String stationId,
    LocalDateTime created,
    LocalDateTime ended,
    BigDecimal kwhTotal,
    BigDecimal dollars,
    BigDecimal chargeTimeHrs,
    String userId,
    String locationId,
    String platform,
    String facilityType) {}
