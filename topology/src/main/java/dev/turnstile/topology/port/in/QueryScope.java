package dev.turnstile.topology.port.in;

/** Where a query may be answered. */
public enum QueryScope {
  /** From local state, or else by naming the owner ({@link QueryAnswer.OwnedBy}). */
  ANY_INSTANCE,
  /**
   * From local state only: the query was forwarded by another instance, which must not be sent on
   * again (a metadata disagreement during a rebalance would otherwise bounce it).
   */
  LOCAL_ONLY
}
