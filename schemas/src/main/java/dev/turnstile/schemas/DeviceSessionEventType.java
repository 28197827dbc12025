package dev.turnstile.schemas;

/** The kinds of {@link DeviceSessionEvent}. */
public enum DeviceSessionEventType {
  /** A {@code Started} event opened the session. */
  Opened,
  /** A matching {@code Finished} event closed it. */
  Closed,
  /** A {@code Started} without session reference arrived while it was open, and replaced it. */
  Superseded,
  /** It stayed open longer than the maximum session duration. */
  Expired
}
