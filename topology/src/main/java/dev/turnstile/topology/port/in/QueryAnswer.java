package dev.turnstile.topology.port.in;

/**
 * What a read-only query of the topology's state answers: the view, that nothing is held for the
 * key, which instance owns the key, or that the state cannot be read now. Never a guess: while
 * Kafka Streams rebalances or restores, or the key's owner is unknown, the answer is {@link
 * Unavailable}, not an empty view.
 *
 * @param <T> the view
 */
public sealed interface QueryAnswer<T> {

  /**
   * Read from a local state store.
   *
   * @param view the view
   * @param standby true when read from a standby replica within the configured staleness bound,
   *     false when read from the active task
   */
  record Found<T>(T view, boolean standby) implements QueryAnswer<T> {}

  /** Read from the active task (or a standby within the bound): nothing is held for the key. */
  record NotFound<T>() implements QueryAnswer<T> {}

  /**
   * Another instance holds the key's active task; ask it.
   *
   * @param server its advertised {@code host:port} (Kafka Streams {@code application.server})
   */
  record OwnedBy<T>(String server) implements QueryAnswer<T> {}

  /**
   * The state cannot be read now; ask again later.
   *
   * @param reason why, for the problem detail (a Kafka Streams state, an IQv2 failure reason)
   */
  record Unavailable<T>(String reason) implements QueryAnswer<T> {}
}
