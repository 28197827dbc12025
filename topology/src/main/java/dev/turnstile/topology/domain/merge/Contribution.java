package dev.turnstile.topology.domain.merge;

import java.util.Comparator;

/**
 * One event that contributed to a merge, identified as CloudEvents do: by source and ID together.
 * Two patches with the same contribution are the same event (a duplicate).
 *
 * @param source the event's source, e.g. {@code servicebus/billing} or a device
 * @param eventId the event's ID within that source
 */
public record Contribution(String source, String eventId) implements Comparable<Contribution> {

  private static final Comparator<Contribution> ORDER =
      Comparator.comparing(Contribution::source).thenComparing(Contribution::eventId);

  public Contribution {
    MergeVersion.requireText(source, "source");
    MergeVersion.requireText(eventId, "eventId");
  }

  /** By source, then event ID. */
  @Override
  public int compareTo(Contribution other) {
    return ORDER.compare(this, other);
  }
}
