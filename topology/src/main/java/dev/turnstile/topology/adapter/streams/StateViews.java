package dev.turnstile.topology.adapter.streams;

import dev.turnstile.topology.domain.merge.MergeResult;
import dev.turnstile.topology.domain.session.DeviceSession;
import dev.turnstile.topology.domain.session.DeviceSessionsSnapshot;
import dev.turnstile.topology.port.in.DeviceSessionsView;
import dev.turnstile.topology.port.in.DeviceSessionsView.EndedSession;
import dev.turnstile.topology.port.in.DeviceSessionsView.OpenSession;
import dev.turnstile.topology.port.in.MergedDocumentView;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;

/** The query views from the stores' own bytes, as the processors wrote them. */
final class StateViews {

  private static final JsonSerde<StoredMergeState> MERGE_STATE =
      new JsonSerde<>(StoredMergeState.class);

  private StateViews() {}

  /**
   * @param snapshot the device's {@code device-session-store} value ({@link SnapshotCodec}), or
   *     null when it holds nothing
   * @param ended the device's {@code device-session-ended-store} entries (key, stored value), in
   *     any order, possibly more than one per reference (one per bucket)
   * @param asOf the time of the read; open durations count to it
   */
  static DeviceSessionsView deviceSessions(
      String deviceId, byte[] snapshot, List<KeyValue<Bytes, byte[]>> ended, Instant asOf) {
    Map<String, EndedSession> newest = new HashMap<>();
    for (KeyValue<Bytes, byte[]> entry : ended) {
      Optional<String> ref = WindowStoreEndedSessions.sessionRef(entry.key, deviceId);
      Optional<RecentKeys.Entry> value = RecentKeys.entry(entry.value);
      if (ref.isEmpty() || value.isEmpty()) {
        continue;
      }
      EndedSession session =
          new EndedSession(
              ref.get(),
              new String(value.get().payload(), StandardCharsets.UTF_8),
              Instant.ofEpochMilli(value.get().atMillis()));
      newest.merge(ref.get(), session, (a, b) -> a.endedAt().isAfter(b.endedAt()) ? a : b);
    }
    List<EndedSession> recentlyEnded =
        newest.values().stream()
            .sorted(
                Comparator.comparing(EndedSession::endedAt)
                    .reversed()
                    .thenComparing(EndedSession::sessionRef))
            .limit(DeviceSessionsView.MAX_ENDED)
            .toList();
    // The two stores are read one after the other: a session that ended in between is in both
    // reads. Its reference can never open again (SESSION_ALREADY_ENDED), so the ended entry wins.
    Set<String> endedRefs = newest.keySet();
    DeviceSessionsSnapshot state =
        snapshot == null ? DeviceSessionsSnapshot.EMPTY : SnapshotCodec.read(snapshot);
    List<OpenSession> open = new ArrayList<>();
    for (DeviceSession session : state.open()) {
      if (session.sessionRef() != null && endedRefs.contains(session.sessionRef())) {
        continue;
      }
      open.add(
          new OpenSession(
              session.sessionId(),
              session.sessionRef(),
              session.startEventId(),
              session.startedAt(),
              Instant.ofEpochMilli(session.openedAtMillis()),
              Math.max(0, asOf.toEpochMilli() - session.openedAtMillis())));
    }
    return new DeviceSessionsView(deviceId, asOf, open, recentlyEnded);
  }

  /**
   * The key's document from its newest {@code merge-store} entry, empty when there is none or it is
   * older than {@code retention} at {@code asOf} (the next patch would start a new document).
   *
   * @param newest the newest stored value of the key (the newest bucket), or null
   */
  static Optional<MergedDocumentView> mergedDocument(
      String mergeKey, byte[] newest, Instant asOf, Duration retention, int maxPatches) {
    Optional<RecentKeys.Entry> entry = RecentKeys.entry(newest);
    if (entry.isEmpty() || asOf.toEpochMilli() - entry.get().atMillis() > retention.toMillis()) {
      return Optional.empty();
    }
    StoredMergeState stored = MERGE_STATE.deserializer().deserialize(null, entry.get().payload());
    Optional<MergeResult> result = stored.restore(mergeKey, maxPatches).result();
    return result.map(
        r ->
            new MergedDocumentView(
                r.mergeKey(),
                r.mergeResultId(),
                r.version(),
                r.document(),
                r.contributionCount(),
                r.sources().stream().collect(Collectors.toList()),
                Instant.ofEpochMilli(entry.get().atMillis())));
  }
}
