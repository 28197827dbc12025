package dev.turnstile.topology.adapter.streams;

import dev.turnstile.schemas.DeviceSessionEventType;
import dev.turnstile.topology.domain.dedup.FirstSeen;
import dev.turnstile.topology.domain.session.DeviceSessionsSnapshot;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What {@code device-state-store} holds under one key ({@link DeviceStateKeys}): the state of one
 * session slot with the events it accepted, or one event remembered on its own.
 */
sealed interface DeviceRecord permits DeviceRecord.Slot, DeviceRecord.Lone {

  /**
   * An event id remembered for dedup: {@link FirstSeen} with the id it belongs to.
   *
   * @param eventId the event's {@code ce_id}
   * @param fingerprint {@link FirstSeen#fingerprint()} of its content
   * @param firstSeenMillis stream time when it was accepted
   */
  record Remembered(String eventId, long fingerprint, long firstSeenMillis) {
    FirstSeen firstSeen() {
      return new FirstSeen(firstSeenMillis, fingerprint);
    }
  }

  /**
   * How a slot's session ended, while that is remembered.
   *
   * @param outcome {@code Closed} or {@code Expired}
   * @param atMillis stream time of the event or punctuation that ended it
   */
  record Ended(DeviceSessionEventType outcome, long atMillis) {}

  /**
   * One session slot of a device: the session of one {@code sessionRef}, or the device's anonymous
   * sessions. Its own events are remembered in it (a slot of a {@code sessionRef} accepts a
   * handful: a {@code Started} and a {@code Finished}), so accepting one costs one write; the
   * anonymous slot remembers none (they are {@link Lone}), so it never grows with the device's
   * history.
   *
   * @param events the events this slot accepted, oldest first
   * @param ended how its session ended, or null
   * @param sessions the aggregate's stored form for this slot
   */
  record Slot(List<Remembered> events, Ended ended, DeviceSessionsSnapshot sessions)
      implements DeviceRecord {

    static final Slot EMPTY = new Slot(List.of(), null, DeviceSessionsSnapshot.EMPTY);

    public Slot {
      events = List.copyOf(events);
      sessions = sessions == null ? DeviceSessionsSnapshot.EMPTY : sessions;
    }

    /** The entry of {@code eventId}, if this slot accepted it. */
    Optional<Remembered> event(String eventId) {
      for (Remembered r : events) {
        if (r.eventId().equals(eventId)) {
          return Optional.of(r);
        }
      }
      return Optional.empty();
    }

    Slot withEvent(Remembered event) {
      List<Remembered> more = new ArrayList<>(events.size() + 1);
      more.addAll(events);
      more.add(event);
      return new Slot(more, ended, sessions);
    }

    /** Nothing open, held, ended or remembered: the slot can be forgotten. */
    boolean isEmpty() {
      return events.isEmpty() && ended == null && sessions.isEmpty();
    }
  }

  /** An event remembered on its own: one without a session slot of its own, or one rejected. */
  record Lone(long fingerprint, long firstSeenMillis) implements DeviceRecord {
    FirstSeen firstSeen() {
      return new FirstSeen(firstSeenMillis, fingerprint);
    }
  }
}
