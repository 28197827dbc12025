package dev.turnstile.testkit.servicebus;

import java.time.Instant;
import java.util.UUID;

/** One message in an entity, with its peek-lock state. Guarded by the {@link Broker}'s lock. */
final class StoredMessage {
  final long sequenceNumber;
  final Instant enqueuedTime;
  final String sessionId;
  byte[] encoded;
  int deliveryCount;
  UUID lockToken;
  Instant lockedUntil;

  StoredMessage(long sequenceNumber, Instant enqueuedTime, String sessionId, byte[] encoded) {
    this.sequenceNumber = sequenceNumber;
    this.enqueuedTime = enqueuedTime;
    this.sessionId = sessionId;
    this.encoded = encoded;
  }

  boolean isLocked() {
    return lockToken != null;
  }

  void unlock() {
    lockToken = null;
    lockedUntil = null;
  }
}
