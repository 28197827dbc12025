package dev.turnstile.topology.domain.session;

import dev.turnstile.schemas.DeviceSessionEventType;
import java.util.Optional;

/**
 * Port: the session references one device has ended, and how. The aggregate asks it before opening
 * or closing by reference, so a late event for an ended session is rejected with a specific reason
 * instead of opening a session that would never close.
 *
 * <p>Kept apart from the device's snapshot so that what each event reads and writes does not grow
 * with the number of sessions a device has had; the Kafka Streams adapter keeps it in a window
 * store that forgets references after a retention.
 */
public interface EndedSessions {

  /** How the session {@code sessionRef} ended, if it ended within what is remembered. */
  Optional<DeviceSessionEventType> outcome(String sessionRef);

  /** Remembers that {@code sessionRef} ended with {@code outcome}. */
  void remember(String sessionRef, DeviceSessionEventType outcome);
}
