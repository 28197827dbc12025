package dev.turnstile.testkit.servicebus;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.UUID;
import java.util.function.Predicate;
import org.apache.qpid.proton.amqp.UnsignedInteger;
import org.apache.qpid.proton.amqp.messaging.Header;
import org.apache.qpid.proton.message.Message;

/**
 * The double's entities and their peek-lock state. Thread-safe: every method holds the broker's
 * lock, so tests can inspect while the AMQP loop delivers.
 */
final class Broker {
  private final Set<String> lostCompletes = new HashSet<>();

  /** A session lock handed to a receiver link. */
  record SessionGrant(String entityPath, String sessionId, Instant lockedUntil, Object owner) {}

  private final Clock clock;
  private final Map<String, Entity> entities = new HashMap<>();
  private final Map<String, List<String>> topics = new HashMap<>();
  private final Map<String, Long> sequences = new HashMap<>();
  private final Map<String, Long> transfers = new HashMap<>();
  private final Map<String, Long> refused = new HashMap<>();

  Broker(Clock clock) {
    this.clock = clock;
  }

  Instant now() {
    return clock.instant();
  }

  synchronized void createQueue(String path, QueueOptions options) {
    entities.put(path, new Entity(path, options));
    String dlq = path + ServiceBusDouble.DEAD_LETTER_SUFFIX;
    entities.put(dlq, new Entity(dlq, options.withSessionsOff()));
  }

  synchronized void createSubscription(String topic, String subscription, QueueOptions options) {
    String path = topic + "/subscriptions/" + subscription;
    createQueue(path, options);
    topics.computeIfAbsent(topic, t -> new ArrayList<>()).add(path);
  }

  synchronized void createTopic(String topic) {
    topics.computeIfAbsent(topic, t -> new ArrayList<>());
  }

  synchronized boolean canSendTo(String path) {
    return topics.containsKey(path) || (entities.containsKey(path) && !isDeadLetterPath(path));
  }

  synchronized boolean canReceiveFrom(String path) {
    return entities.containsKey(path);
  }

  synchronized boolean requiresSession(String path) {
    return entity(path).options.requiresSession();
  }

  /**
   * Stores the messages of one transfer in the queue, or in every subscription of the topic: all of
   * them, or none when one cannot be stored (a session entity and a message without a session id),
   * so a refused transfer leaves nothing behind.
   */
  synchronized void enqueue(String path, List<byte[]> encodedMessages) {
    List<String> targets = topics.containsKey(path) ? topics.get(path) : List.of(path);
    for (String target : targets) {
      for (byte[] encoded : encodedMessages) {
        if (entity(target).options.requiresSession() && Amqp.decode(encoded).getGroupId() == null) {
          throw new IllegalArgumentException(
              "session-enabled entity needs a session id: " + target);
        }
      }
    }
    for (String target : targets) {
      Entity entity = entity(target);
      for (byte[] encoded : encodedMessages) {
        Message message = Amqp.decode(encoded);
        long sequence = nextSequence(entity);
        Instant now = now();
        Amqp.annotations(message).put(Amqp.SEQUENCE_NUMBER, sequence);
        Amqp.annotations(message).put(Amqp.ENQUEUED_TIME, Date.from(now));
        StoredMessage stored =
            new StoredMessage(sequence, now, message.getGroupId(), Amqp.encode(message));
        entity.messages.put(sequence, stored);
      }
    }
  }

  private long nextSequence(Entity entity) {
    return sequences.merge(entity.path, 1L, Long::sum);
  }

  /**
   * Locks the next available message (of the session, when sessionId is not null) and returns the
   * bytes to deliver, or null when there is none.
   */
  synchronized Delivered lockNext(String path, String sessionId) {
    Entity entity = entity(path);
    StoredMessage message = entity.firstAvailable(sessionId);
    if (message == null) {
      return null;
    }
    message.lockToken = UUID.randomUUID();
    message.lockedUntil = now().plus(entity.options.lockDuration());
    if (sessionId != null) {
      message.lockedUntil = entity.sessions.get(sessionId).lockedUntil;
    }
    entity.locked.put(message.lockToken, message);
    Message amqp = Amqp.decode(message.encoded);
    // The SDK reads the header unconditionally; proton omits it when nothing in it is set.
    Header header = amqp.getHeader() == null ? new Header() : amqp.getHeader();
    header.setDeliveryCount(UnsignedInteger.valueOf(message.deliveryCount));
    header.setFirstAcquirer(message.deliveryCount == 0);
    amqp.setHeader(header);
    Amqp.annotations(amqp).put(Amqp.LOCKED_UNTIL, Date.from(message.lockedUntil));
    return new Delivered(message.lockToken, Amqp.encode(amqp));
  }

  /** A message handed to a receiver under a lock. */
  record Delivered(UUID lockToken, byte[] encoded) {}

  /** Removes a delivered message for good; false when its lock is gone. */
  synchronized boolean complete(String path, UUID lockToken) {
    return complete(path, lockToken, messageId -> false);
  }

  /**
   * As {@link #complete(String, UUID)}, but the first complete of a message whose id matches {@code
   * loseFirst} is lost as if its lock had expired just before: the message becomes available again
   * with its delivery count raised, and the caller is told the lock is gone.
   */
  synchronized boolean complete(String path, UUID lockToken, Predicate<String> loseFirst) {
    Entity entity = entity(path);
    StoredMessage locked = entity.locked.get(lockToken);
    if (locked != null
        && loseFirst.test(String.valueOf(Amqp.decode(locked.encoded).getMessageId()))
        && lostCompletes.add(path + "#" + locked.sequenceNumber)) {
      entity.locked.remove(lockToken);
      release(entity, locked);
      return false;
    }
    StoredMessage message = entity.locked.remove(lockToken);
    if (message == null) {
      return false;
    }
    entity.messages.remove(message.sequenceNumber);
    entity.completed++;
    return true;
  }

  /** Releases a lock and counts the failed attempt; false when its lock is gone. */
  synchronized boolean abandon(String path, UUID lockToken, Map<?, ?> propertiesToModify) {
    Entity entity = entity(path);
    StoredMessage message = entity.locked.remove(lockToken);
    if (message == null) {
      return false;
    }
    entity.abandoned++;
    if (propertiesToModify != null && !propertiesToModify.isEmpty()) {
      Message amqp = Amqp.decode(message.encoded);
      for (Map.Entry<?, ?> property : propertiesToModify.entrySet()) {
        Amqp.applicationProperties(amqp)
            .put(String.valueOf(property.getKey()), property.getValue());
      }
      message.encoded = Amqp.encode(amqp);
    }
    release(entity, message);
    return true;
  }

  /** Moves a delivered message to the dead-letter queue; false when its lock is gone. */
  synchronized boolean deadLetter(String path, UUID lockToken, String reason, String description) {
    Entity entity = entity(path);
    StoredMessage message = entity.locked.remove(lockToken);
    if (message == null) {
      return false;
    }
    moveToDeadLetterQueue(entity, message, reason, description);
    return true;
  }

  /** Extends a message lock; null when the lock is gone. */
  synchronized Instant renewLock(String path, UUID lockToken) {
    Entity entity = entity(path);
    StoredMessage message = entity.locked.get(lockToken);
    if (message == null) {
      return null;
    }
    message.lockedUntil = now().plus(entity.options.lockDuration());
    entity.renewed++;
    return message.lockedUntil;
  }

  /**
   * Locks a session for a receiver link: the named one if nobody holds it, else (sessionId null)
   * the session of the oldest available message. Null when there is none to give.
   */
  synchronized SessionGrant acquireSession(String path, String sessionId, Object owner) {
    Entity entity = entity(path);
    String chosen = sessionId != null ? sessionId : entity.nextFreeSession();
    if (chosen == null || entity.sessions.containsKey(chosen)) {
      return null;
    }
    Instant until = now().plus(entity.options.lockDuration());
    entity.sessions.put(chosen, new Entity.SessionLock(owner, until));
    return new SessionGrant(path, chosen, until, owner);
  }

  /** Extends a session lock; null when the session is not locked. */
  synchronized Instant renewSessionLock(String path, String sessionId) {
    Entity entity = entity(path);
    Entity.SessionLock lock = entity.sessions.get(sessionId);
    if (lock == null) {
      return null;
    }
    lock.lockedUntil = now().plus(entity.options.lockDuration());
    for (StoredMessage message : entity.locked.values()) {
      if (sessionId.equals(message.sessionId)) {
        message.lockedUntil = lock.lockedUntil;
      }
    }
    entity.renewed++;
    return lock.lockedUntil;
  }

  /** Gives a session up: its locked messages become available again, counted as a failed try. */
  synchronized void releaseSession(String path, String sessionId, Object owner) {
    Entity entity = entities.get(path);
    if (entity == null) {
      return;
    }
    Entity.SessionLock lock = entity.sessions.get(sessionId);
    if (lock == null || lock.owner != owner) {
      return;
    }
    entity.sessions.remove(sessionId);
    Iterator<StoredMessage> locked = entity.locked.values().iterator();
    while (locked.hasNext()) {
      StoredMessage message = locked.next();
      if (sessionId.equals(message.sessionId)) {
        locked.remove();
        release(entity, message);
      }
    }
  }

  /** Expires message locks; returns the session locks that expired, for their links to close. */
  synchronized List<SessionGrant> expireLocks() {
    Instant now = now();
    List<SessionGrant> expiredSessions = new ArrayList<>();
    for (Entity entity : new ArrayList<>(entities.values())) {
      for (Map.Entry<String, Entity.SessionLock> session : entity.sessions.entrySet()) {
        if (!session.getValue().lockedUntil.isAfter(now)) {
          expiredSessions.add(
              new SessionGrant(
                  entity.path,
                  session.getKey(),
                  session.getValue().lockedUntil,
                  session.getValue().owner));
        }
      }
      Iterator<StoredMessage> locked = entity.locked.values().iterator();
      while (locked.hasNext()) {
        StoredMessage message = locked.next();
        if (message.sessionId == null && !message.lockedUntil.isAfter(now)) {
          locked.remove();
          release(entity, message);
        }
      }
    }
    for (SessionGrant grant : expiredSessions) {
      releaseSession(grant.entityPath(), grant.sessionId(), grant.owner());
    }
    return expiredSessions;
  }

  private void release(Entity entity, StoredMessage message) {
    message.unlock();
    message.deliveryCount++;
    if (message.deliveryCount >= entity.options.maxDeliveryCount()) {
      moveToDeadLetterQueue(
          entity,
          message,
          "MaxDeliveryCountExceeded",
          "Message could not be consumed after "
              + entity.options.maxDeliveryCount()
              + " delivery attempts.");
    }
  }

  private void moveToDeadLetterQueue(
      Entity entity, StoredMessage message, String reason, String description) {
    entity.messages.remove(message.sequenceNumber);
    message.unlock();
    Message amqp = Amqp.decode(message.encoded);
    if (reason != null) {
      Amqp.applicationProperties(amqp).put(ServiceBusDouble.DEAD_LETTER_REASON, reason);
    }
    if (description != null) {
      Amqp.applicationProperties(amqp)
          .put(ServiceBusDouble.DEAD_LETTER_ERROR_DESCRIPTION, description);
    }
    message.encoded = Amqp.encode(amqp);
    Entity deadLetterQueue = entity(entity.deadLetterPath());
    deadLetterQueue.messages.put(message.sequenceNumber, message);
  }

  synchronized List<BrokeredMessage> messages(String path) {
    List<BrokeredMessage> snapshot = new ArrayList<>();
    for (StoredMessage message : entity(path).messages.values()) {
      snapshot.add(Amqp.snapshotOf(message));
    }
    return snapshot;
  }

  /** Counts a whole transfer a sender link delivered to {@code path}, stored or refused. */
  synchronized void countTransfer(String path, boolean stored) {
    transfers.merge(path, 1L, Long::sum);
    if (!stored) {
      refused.merge(path, 1L, Long::sum);
    }
  }

  synchronized long transferCount(String path) {
    return transfers.getOrDefault(path, 0L);
  }

  synchronized long refusedCount(String path) {
    return refused.getOrDefault(path, 0L);
  }

  synchronized long lostCompleteCount(String path) {
    String prefix = path + "#";
    return lostCompletes.stream().filter(k -> k.startsWith(prefix)).count();
  }

  synchronized long completedCount(String path) {
    return entity(path).completed;
  }

  synchronized int messageCount(String path) {
    return entity(path).messages.size();
  }

  synchronized int lockedCount(String path) {
    return entity(path).locked.size();
  }

  synchronized int lockedSessionCount(String path) {
    return entity(path).sessions.size();
  }

  synchronized long abandonedCount(String path) {
    return entity(path).abandoned;
  }

  synchronized long renewCount(String path) {
    return entity(path).renewed;
  }

  /** The earliest lock expiry, for the loop to wake up in time; null when nothing is locked. */
  synchronized Instant nextExpiry() {
    Instant next = null;
    for (Entity entity : entities.values()) {
      for (StoredMessage message : entity.locked.values()) {
        next = earliest(next, message.lockedUntil);
      }
      for (Entity.SessionLock lock : entity.sessions.values()) {
        next = earliest(next, lock.lockedUntil);
      }
    }
    return next;
  }

  private static Instant earliest(Instant a, Instant b) {
    return a == null || b.isBefore(a) ? b : a;
  }

  private Entity entity(String path) {
    Entity entity = entities.get(path);
    if (entity == null) {
      throw new NoSuchElementException("no such entity: " + path);
    }
    return entity;
  }

  private static boolean isDeadLetterPath(String path) {
    return path.endsWith(ServiceBusDouble.DEAD_LETTER_SUFFIX);
  }
}
