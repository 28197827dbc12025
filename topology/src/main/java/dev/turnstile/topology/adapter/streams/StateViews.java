package dev.turnstile.topology.adapter.streams;

import dev.turnstile.topology.domain.merge.MergeResult;
import dev.turnstile.topology.domain.session.DeviceSession;
import dev.turnstile.topology.port.in.DeviceSessionsView;
import dev.turnstile.topology.port.in.DeviceSessionsView.EndedSession;
import dev.turnstile.topology.port.in.DeviceSessionsView.OpenSession;
import dev.turnstile.topology.port.in.MergedDocumentView;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/** The query views from the stores' own bytes, as the processors wrote them. */
final class StateViews {

  private StateViews() {}

  /**
   * One stored value as a store read returns it.
   *
   * @param key the store key
   * @param value the stored bytes ({@link TimedStore}'s form)
   * @param bucket its window start
   */
  record Stored(byte[] key, byte[] value, long bucket) {}

  /**
   * @param slots the device's {@code device-state-store} records, in any order
   * @param asOf the time of the read; open durations count to it
   * @param endedRetention how long an ended reference is remembered
   */
  static DeviceSessionsView deviceSessions(
      String deviceId, List<Stored> slots, Instant asOf, Duration endedRetention) {
    List<EndedSession> ended = new ArrayList<>();
    List<DeviceSession> openSessions = new ArrayList<>();
    for (Stored stored : slots) {
      DeviceStateKeys.Parsed key = DeviceStateKeys.parse(stored.key());
      if (key.kind() == DeviceStateKeys.LONE || !key.deviceId().equals(deviceId)) {
        continue;
      }
      DeviceRecord.Slot slot =
          (DeviceRecord.Slot)
              TimedStore.decode(DeviceRecordCodec.INSTANCE, stored.value(), stored.bucket())
                  .value();
      openSessions.addAll(slot.sessions().open());
      DeviceRecord.Ended end = slot.ended();
      if (end != null
          && key.sessionRef() != null
          && asOf.toEpochMilli() - end.atMillis() <= endedRetention.toMillis()) {
        ended.add(
            new EndedSession(
                key.sessionRef(), end.outcome().name(), Instant.ofEpochMilli(end.atMillis())));
      }
    }
    List<EndedSession> recentlyEnded =
        ended.stream()
            .sorted(
                Comparator.comparing(EndedSession::endedAt)
                    .reversed()
                    .thenComparing(EndedSession::sessionRef))
            .limit(DeviceSessionsView.MAX_ENDED)
            .toList();
    List<OpenSession> open =
        openSessions.stream()
            .sorted(
                Comparator.comparingLong(DeviceSession::openedAtMillis)
                    .thenComparing(DeviceSession::sessionId, Comparator.naturalOrder()))
            .map(
                session ->
                    new OpenSession(
                        session.sessionId(),
                        session.sessionRef(),
                        session.startEventId(),
                        session.startedAt(),
                        Instant.ofEpochMilli(session.openedAtMillis()),
                        Math.max(0, asOf.toEpochMilli() - session.openedAtMillis())))
            .toList();
    return new DeviceSessionsView(deviceId, asOf, open, recentlyEnded);
  }

  /**
   * The key's document from its newest {@code merge-store} entry, empty when there is none or it is
   * older than {@code retention} at {@code asOf} (the next patch would start a new document).
   *
   * @param newest the newest stored value of the key (the newest bucket), or null
   */
  static Optional<MergedDocumentView> mergedDocument(
      String mergeKey, Stored newest, Instant asOf, Duration retention, int maxPatches) {
    if (newest == null) {
      return Optional.empty();
    }
    TimedStore.Found<StoredMergeState> entry =
        TimedStore.decode(StoredMergeState.CODEC, newest.value(), newest.bucket());
    if (asOf.toEpochMilli() - entry.stampMillis() > retention.toMillis()) {
      return Optional.empty();
    }
    Optional<MergeResult> result = entry.value().restore(mergeKey, maxPatches).result();
    return result.map(
        r ->
            new MergedDocumentView(
                r.mergeKey(),
                r.mergeResultId(),
                r.version(),
                r.document(),
                r.contributionCount(),
                r.sources().stream().collect(Collectors.toList()),
                Instant.ofEpochMilli(entry.stampMillis())));
  }
}
