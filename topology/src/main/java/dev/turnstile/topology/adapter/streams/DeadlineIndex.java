package dev.turnstile.topology.adapter.streams;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.OptionalLong;
import java.util.TreeSet;

/**
 * Session slots by their next deadline, in memory, for the wall-clock punctuator: it reads only
 * what is due instead of every slot. Derived state, never written to a changelog: the processor
 * rebuilds it from {@code device-state-store} whenever a task is initialised (after a restore, a
 * rebalance or an aborted transaction), under the policy then configured, so it always agrees with
 * the stored sessions and never holds an entry an earlier policy left behind.
 *
 * <p>Memory: one entry (a deadline and the key) per slot with something open or held.
 *
 * @param <K> the slot's key
 */
final class DeadlineIndex<K extends Comparable<K>> {

  private record Due<K extends Comparable<K>>(long atMillis, K deviceId)
      implements Comparable<Due<K>> {
    @Override
    public int compareTo(Due<K> other) {
      int byTime = Long.compare(atMillis, other.atMillis);
      return byTime != 0 ? byTime : deviceId.compareTo(other.deviceId);
    }
  }

  private final NavigableSet<Due<K>> due = new TreeSet<>();
  private final Map<K, Long> deadlineOf = new HashMap<>();

  /** Sets (or, when empty, removes) the next deadline of {@code deviceId}. */
  void set(K deviceId, OptionalLong deadline) {
    Long before = deadlineOf.remove(deviceId);
    if (before != null) {
      due.remove(new Due<>(before, deviceId));
    }
    if (deadline.isPresent()) {
      deadlineOf.put(deviceId, deadline.getAsLong());
      due.add(new Due<>(deadline.getAsLong(), deviceId));
    }
  }

  /**
   * Removes and returns up to {@code max} devices whose deadline is at or before {@code nowMillis},
   * earliest first; the caller sets their next deadline again after handling them.
   */
  List<K> takeDue(long nowMillis, int max) {
    List<K> devices = new ArrayList<>();
    for (Iterator<Due<K>> it = due.iterator(); it.hasNext() && devices.size() < max; ) {
      Due<K> next = it.next();
      if (next.atMillis() > nowMillis) {
        break;
      }
      it.remove();
      deadlineOf.remove(next.deviceId());
      devices.add(next.deviceId());
    }
    return devices;
  }

  void clear() {
    due.clear();
    deadlineOf.clear();
  }

  int size() {
    return deadlineOf.size();
  }
}
