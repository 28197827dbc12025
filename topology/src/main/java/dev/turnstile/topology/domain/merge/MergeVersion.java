package dev.turnstile.topology.domain.merge;

import java.time.Instant;
import java.util.Comparator;
import java.util.Objects;
import java.util.OptionalLong;

/**
 * Where a patch stands in the merge order of its merge key: patches are applied in ascending {@code
 * MergeVersion} order, whatever order they arrive in.
 *
 * <p>Per the design, a patch's version is its source's explicit version when the source gives one,
 * else the source's sequence number (a Service Bus message's {@code SequenceNumber}), else its
 * event time ({@link #select}).
 *
 * <p><b>Order</b> (total, so the final document never depends on arrival order):
 *
 * <ol>
 *   <li>{@link Kind} rank: {@code EVENT_TIME < SOURCE_SEQUENCE < EXPLICIT}. A kind that is more
 *       authoritative applies later and therefore wins on the members both patches set: a source
 *       that versions its records explicitly overrides what was inferred from clocks;
 *   <li>then {@link #value()} numerically, across sources too. Comparing two sources' sequence
 *       numbers or clocks says nothing about causality; the rule guarantees only that every replica
 *       and every replay picks the same order;
 *   <li>then {@link #source()}, then {@link #eventId()}, each by {@link String#compareTo}, so two
 *       different events never tie. Equal versions therefore mean the same event.
 * </ol>
 *
 * @param kind what {@code value} is
 * @param value the explicit version, the sequence number, or the event time in epoch milliseconds
 * @param source the contributing source, e.g. a CloudEvents {@code source}; not blank
 * @param eventId the event's ID within its source; not blank
 */
public record MergeVersion(Kind kind, long value, String source, String eventId)
    implements Comparable<MergeVersion> {

  /** What a version's value is, in ascending rank. */
  public enum Kind {
    /** The event's own time, epoch milliseconds: the fallback when nothing better is given. */
    EVENT_TIME,
    /** The source's sequence number, e.g. Service Bus {@code SequenceNumber}. */
    SOURCE_SEQUENCE,
    /** A version the source set on the record itself. */
    EXPLICIT
  }

  private static final Comparator<MergeVersion> ORDER =
      Comparator.comparing(MergeVersion::kind)
          .thenComparingLong(MergeVersion::value)
          .thenComparing(MergeVersion::source)
          .thenComparing(MergeVersion::eventId);

  public MergeVersion {
    Objects.requireNonNull(kind, "kind");
    requireText(source, "source");
    requireText(eventId, "eventId");
  }

  /** A version the source set explicitly. */
  public static MergeVersion explicit(long version, String source, String eventId) {
    return new MergeVersion(Kind.EXPLICIT, version, source, eventId);
  }

  /** A version from the source's sequence number. */
  public static MergeVersion sequence(long sequenceNumber, String source, String eventId) {
    return new MergeVersion(Kind.SOURCE_SEQUENCE, sequenceNumber, source, eventId);
  }

  /** A version from the event time, truncated to milliseconds (Kafka's timestamp precision). */
  public static MergeVersion eventTime(Instant time, String source, String eventId) {
    return new MergeVersion(Kind.EVENT_TIME, time.toEpochMilli(), source, eventId);
  }

  /**
   * The design's rule: explicit version, else sequence number, else event time.
   *
   * @throws NullPointerException when neither version nor sequence is present and {@code eventTime}
   *     is null
   */
  public static MergeVersion select(
      OptionalLong explicitVersion,
      OptionalLong sequenceNumber,
      Instant eventTime,
      String source,
      String eventId) {
    if (explicitVersion.isPresent()) {
      return explicit(explicitVersion.getAsLong(), source, eventId);
    }
    if (sequenceNumber.isPresent()) {
      return sequence(sequenceNumber.getAsLong(), source, eventId);
    }
    return eventTime(Objects.requireNonNull(eventTime, "eventTime"), source, eventId);
  }

  /** The event this version belongs to. */
  public Contribution contribution() {
    return new Contribution(source, eventId);
  }

  @Override
  public int compareTo(MergeVersion other) {
    return ORDER.compare(this, other);
  }

  static String requireText(String value, String name) {
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException(name + " must not be blank");
    }
    return value;
  }
}
