package dev.turnstile.local;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVRecord;

/**
 * Reads {@code ev-workplace-charging-sessions-2014-2015.csv} (CC0, see {@code data/README.md}).
 *
 * <p>The published file writes years as {@code 0014}/{@code 0015}: they are read as 2014/2015.
 * Timestamps carry no zone; the sites are in the US and this replay reads them in {@link #ZONE}.
 */
public final class EvChargingDataset {

  /** The file as the repository ships it, relative to the repository's root. */
  public static final Path SHIPPED =
      Path.of("data", "ev-workplace-charging-sessions-2014-2015.csv");

  /** The zone the replay assumes for the file's local timestamps. */
  public static final ZoneId ZONE = ZoneId.of("America/Los_Angeles");

  private static final DateTimeFormatter FORMAT =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss");

  private EvChargingDataset() {}

  /**
   * @throws IllegalArgumentException naming the line when a row cannot be read
   */
  public static List<ChargingSession> read(Path csv) {
    CSVFormat format = CSVFormat.DEFAULT.builder().setHeader().setSkipHeaderRecord(true).get();
    List<ChargingSession> sessions = new ArrayList<>();
    try (Reader reader = Files.newBufferedReader(csv, StandardCharsets.UTF_8)) {
      for (CSVRecord row : format.parse(reader)) {
        sessions.add(parse(row));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + csv, e);
    }
    return sessions;
  }

  private static ChargingSession parse(CSVRecord row) {
    try {
      return new ChargingSession(
          row.get("sessionId"),
          row.get("stationId"),
          timestamp(row.get("created")),
          timestamp(row.get("ended")),
          new BigDecimal(row.get("kwhTotal")),
          new BigDecimal(row.get("dollars")),
          new BigDecimal(row.get("chargeTimeHrs")),
          row.get("userId"),
          row.get("locationId"),
          row.get("platform"),
          row.get("facilityType"));
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(
          "line " + (row.getRecordNumber() + 1) + ": " + e.getMessage(), e);
    }
  }

  /** {@code 0014-11-18 15:40:26} is 2014-11-18T15:40:26. */
  static LocalDateTime timestamp(String text) {
    String fixed = text.startsWith("00") ? "20" + text.substring(2) : text;
    return LocalDateTime.parse(fixed, FORMAT);
  }
}
