package dev.turnstile.testkit.servicebus;

import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;

/** A queue, a subscription or a dead-letter queue. Guarded by the {@link Broker}'s lock. */
final class Entity {

  /** Who holds a session and until when. */
  static final class SessionLock {
    final Object owner;
    Instant lockedUntil;

    SessionLock(Object owner, Instant lockedUntil) {
      this.owner = owner;
      this.lockedUntil = lockedUntil;
    }
  }

  final String path;
  final QueueOptions options;
  final TreeMap<Long, StoredMessage> messages = new TreeMap<>();
  final Map<UUID, StoredMessage> locked = new HashMap<>();
  final Map<String, SessionLock> sessions = new HashMap<>();
  long completed;
  long abandoned;
  long renewed;

  Entity(String path, QueueOptions options) {
    this.path = path;
    this.options = options;
  }

  String deadLetterPath() {
    return path + ServiceBusDouble.DEAD_LETTER_SUFFIX;
  }

  /** The first unlocked message, of the given session when sessionId is not null. */
  StoredMessage firstAvailable(String sessionId) {
    for (StoredMessage message : messages.values()) {
      if (!message.isLocked() && (sessionId == null || sessionId.equals(message.sessionId))) {
        return message;
      }
    }
    return null;
  }

  /** The session of the oldest available message whose session nobody holds, or null. */
  String nextFreeSession() {
    for (StoredMessage message : messages.values()) {
      if (!message.isLocked()
          && message.sessionId != null
          && !sessions.containsKey(message.sessionId)) {
        return message.sessionId;
      }
    }
    return null;
  }
}
