package dev.turnstile.bridge.port.out;

/** A write that was not acknowledged, with whether trying again can succeed. */
public final class PublishException extends RuntimeException {

  /** Why the write failed. */
  public enum Reason {
    /** Too many writes in flight; nothing was sent. Retry later. */
    SATURATED(true),
    /** Kafka did not acknowledge within the configured bound. Retry later. */
    UNAVAILABLE(true),
    /** The record can never be written as it is (for example larger than the topic accepts). */
    REJECTED(false);

    private final boolean retriable;

    Reason(boolean retriable) {
      this.retriable = retriable;
    }

    public boolean retriable() {
      return retriable;
    }
  }

  private final Reason reason;

  public PublishException(Reason reason, String message, Throwable cause) {
    super(message, cause);
    this.reason = reason;
  }

  public Reason reason() {
    return reason;
  }
}
