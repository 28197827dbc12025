package dev.turnstile.topology.config;

import static dev.turnstile.topology.config.TopologyConfigModel.*;

import dev.turnstile.runtime.config.Settings;
import java.time.Duration;
import java.util.Optional;

/**
 * The interactive queries ({@code GET /api/v1/devices/{deviceId}/sessions}, {@code GET
 * /api/v1/merge/{mergeKey}}); keys {@code topology.query.*}, declared in {@link
 * TopologyConfigModel}.
 *
 * @param advertisedServer the {@code host:port} other instances reach this one's HTTP server at,
 *     given to Kafka Streams as {@code application.server}; empty: this host's address and the HTTP
 *     port it listens on
 * @param standbyMaxLagRecords how many changelog records a local standby replica may lag behind and
 *     still answer; negative: standbys never answer, only active tasks
 * @param forwardTimeout how long a forwarded query may take before the asker answers 503
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
