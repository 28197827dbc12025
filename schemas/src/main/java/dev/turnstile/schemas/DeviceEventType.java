package dev.turnstile.schemas;

/** What a device reports about a charging (or any) session. */
public enum DeviceEventType {
  /** The session started at {@code occurredAt}. */
  Started,
  /** The session ended at {@code occurredAt}. */
  Finished
}
