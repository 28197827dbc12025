package dev.turnstile.topology.config;

import static dev.turnstile.topology.config.TopologyConfigModel.*;

import dev.turnstile.runtime.config.Settings;
import java.time.Duration;
import java.util.Optional;

/**
 * The interactive queries ({@code GET /api/v1/devices/{deviceId}/sessions}, {@code GET
 * /api/v1/merge/{mergeKey}}): the keys {@code topology.query.*}, each component the key of the same
 * name in {@link TopologyConfigModel}. An empty {@code advertisedServer} is this host's address and
 * the HTTP port it listens on; a negative {@code standbyMaxLagRecords}, {@link #NO_STANDBY_READS},
 * lets only active tasks answer.
 */
public record QuerySettings(
    Optional<String> advertisedServer, long standbyMaxLagRecords, Duration forwardTimeout) {

  /** Standbys never answer. */
  public static final long NO_STANDBY_READS = -1;

  static QuerySettings from(Settings s) {
    return new QuerySettings(
        s.get(QUERY_ADVERTISED_SERVER),
        s.get(QUERY_STANDBY_MAX_LAG_RECORDS),
        s.get(QUERY_FORWARD_TIMEOUT));
  }
}
