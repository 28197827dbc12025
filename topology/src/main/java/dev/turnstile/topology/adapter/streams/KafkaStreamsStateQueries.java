package dev.turnstile.topology.adapter.streams;

import dev.turnstile.topology.port.in.DeviceSessionsView;
import dev.turnstile.topology.port.in.MergedDocumentView;
import dev.turnstile.topology.port.in.QueryAnswer;
import dev.turnstile.topology.port.in.QueryDeviceSessionsUseCase;
import dev.turnstile.topology.port.in.QueryMergedDocumentUseCase;
import dev.turnstile.topology.port.in.QueryScope;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.Supplier;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyQueryMetadata;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.LagInfo;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.errors.StreamsException;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.query.FailureReason;
import org.apache.kafka.streams.query.Query;
import org.apache.kafka.streams.query.QueryResult;
import org.apache.kafka.streams.query.StateQueryRequest;
import org.apache.kafka.streams.query.WindowKeyQuery;
import org.apache.kafka.streams.state.HostInfo;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyWindowStore;
import org.apache.kafka.streams.state.WindowStoreIterator;

/**
 * The topology's read-only queries: one partition's store each, the one {@link
 * KafkaStreams#queryMetadataForKey} names for the key. A merge key's document through Interactive
 * Queries v2 (KIP-796), a {@link WindowKeyQuery} on {@code merge-store}; a device's sessions
 * through the read-only view of {@code device-state-store} ({@link KafkaStreams#store}), because
 * they are a range of keys (every slot of the device, {@link DeviceStateKeys#deviceRange}), which
 * IQv2 does not offer for window stores ({@code WindowRangeQuery} takes one key or none).
 *
 * <p><b>Who answers.</b> Only while Kafka Streams is {@code RUNNING}. The active task's store when
 * it is here ({@link StateQueryRequest#requireActive()}); else, when {@code standbyMaxLag >= 0}, a
 * standby replica here at most that many records behind its changelog ({@link
 * KafkaStreams#allLocalStorePartitionLags()}, less the last commit marker: {@link
 * #standbyRecordsBehind}); else the answer names the active host ({@code application.server}) for
 * the caller to ask. No owner known, an IQv2 failure ({@code NOT_ACTIVE} or {@code NOT_PRESENT}
 * after metadata named this instance, {@code NOT_UP_TO_BOUND}, a store exception): {@link
 * QueryAnswer.Unavailable}, never an empty answer.
 */
public final class KafkaStreamsStateQueries
    implements QueryDeviceSessionsUseCase, QueryMergedDocumentUseCase {

  private final Supplier<KafkaStreams> streams;
  private final HostInfo self;
  private final long standbyMaxLag;
  private final Duration mergeRetention;
  private final Duration endedRetention;
  private final int maxPatches;
  private final Clock clock;

  /**
   * @param streams the running client, or null before it was created
   * @param self this instance's {@code application.server}, or null when none is set
   * @param standbyMaxLag how many records a local standby may be behind its changelog and still
   *     answer (0: every committed record restored); negative: only active tasks answer
   */
  public KafkaStreamsStateQueries(
      Supplier<KafkaStreams> streams,
      HostInfo self,
      long standbyMaxLag,
      Duration mergeRetention,
      Duration endedRetention,
      int maxPatches,
      Clock clock) {
    this.streams = streams;
    this.self = self;
    this.standbyMaxLag = standbyMaxLag;
    this.mergeRetention = mergeRetention;
    this.endedRetention = endedRetention;
    this.maxPatches = maxPatches;
    this.clock = clock;
  }

  @Override
  public QueryAnswer<DeviceSessionsView> deviceSessions(String deviceId, QueryScope scope) {
    return answer(
        Names.DEVICE_STATE_STORE,
        deviceId,
        scope,
        (client, partition, active) -> {
          List<StateViews.Stored> slots;
          try {
            slots = deviceEntries(client, deviceId, partition, active);
          } catch (InvalidStateStoreException notHere) {
            return null;
          }
          return new QueryAnswer.Found<>(
              StateViews.deviceSessions(deviceId, slots, clock.instant(), endedRetention), !active);
        });
  }

  @Override
  public QueryAnswer<MergedDocumentView> mergedDocument(String mergeKey, QueryScope scope) {
    return answer(
        Names.MERGE_STORE,
        mergeKey,
        scope,
        (client, partition, active) -> {
          Bytes key = Bytes.wrap(mergeKey.getBytes(StandardCharsets.UTF_8));
          QueryResult<WindowStoreIterator<byte[]>> result =
              client
                  .query(
                      request(
                          Names.MERGE_STORE,
                          WindowKeyQuery.<Bytes, byte[]>withKeyAndWindowStartRange(
                              key, Instant.EPOCH, Instant.ofEpochMilli(Long.MAX_VALUE)),
                          partition,
                          active))
                  .getPartitionResults()
                  .get(partition);
          if (result == null || result.isFailure()) {
            return failed(result);
          }
          StateViews.Stored newest = null;
          try (WindowStoreIterator<byte[]> windows = result.getResult()) {
            // Ascending window start: the last bucket holds the key's current state.
            while (windows.hasNext()) {
              KeyValue<Long, byte[]> window = windows.next();
              newest = new StateViews.Stored(key.get(), window.value, window.key);
            }
          }
          Optional<MergedDocumentView> view =
              StateViews.mergedDocument(
                  mergeKey, newest, clock.instant(), mergeRetention, maxPatches);
          return view.<QueryAnswer<MergedDocumentView>>map(v -> new QueryAnswer.Found<>(v, !active))
              .orElseGet(QueryAnswer.NotFound::new);
        });
  }

  /**
   * Reads a key's state from one partition's store, the active one or a standby; null when that
   * store is not on this instance (IQv2 {@code NOT_ACTIVE} or {@code NOT_PRESENT}).
   */
  private interface Read<T> {
    QueryAnswer<T> read(KafkaStreams client, int partition, boolean active);
  }

  private <T> QueryAnswer<T> answer(String store, String key, QueryScope scope, Read<T> read) {
    KafkaStreams client = streams.get();
    if (client == null || client.state() != KafkaStreams.State.RUNNING) {
      return new QueryAnswer.Unavailable<>(
          "Kafka Streams is " + (client == null ? "not started" : client.state()));
    }
    try {
      KeyQueryMetadata owner = client.queryMetadataForKey(store, key, Serdes.String().serializer());
      if (owner == null || owner.partition() < 0) {
        return new QueryAnswer.Unavailable<>("no owner of the key is known (rebalancing)");
      }
      int partition = owner.partition();
      QueryAnswer<T> local = read.read(client, partition, true);
      if (local != null) {
        return local;
      }
      OptionalLong standbyLag = standbyRecordsBehind(client, store, partition);
      if (standbyLag.isPresent() && standbyLag.getAsLong() <= standbyMaxLag) {
        QueryAnswer<T> standby = read.read(client, partition, false);
        if (standby != null) {
          return standby;
        }
      }
      HostInfo active = owner.activeHost();
      if (scope == QueryScope.LOCAL_ONLY
          || active == null
          || active.port() < 0
          || active.equals(self)
          || self == null) {
        return new QueryAnswer.Unavailable<>(
            "partition "
                + partition
                + " of "
                + store
                + " is not active here"
                + standbyNote(standbyLag)
                + ownerNote(active));
      }
      return new QueryAnswer.OwnedBy<>(active.host() + ":" + active.port());
    } catch (StreamsException | IllegalStateException e) {
      // Thrown while the client changes state under the query (a rebalance, a shutdown).
      return new QueryAnswer.Unavailable<>(e.getClass().getSimpleName() + ": " + e.getMessage());
    }
  }

  private String standbyNote(OptionalLong lag) {
    return lag.isPresent() && lag.getAsLong() > standbyMaxLag
        ? "; its standby here is "
            + lag.getAsLong()
            + " records behind, more than topology.query.standby-max-lag-records ("
            + standbyMaxLag
            + ")"
        : "";
  }

  private static String ownerNote(HostInfo active) {
    return active == null || active.port() < 0 ? " and its owner is not known" : "";
  }

  /** Null (not here) for {@code NOT_ACTIVE}, {@code NOT_PRESENT}; else unavailable. */
  private static <R, T> QueryAnswer<T> failed(QueryResult<R> result) {
    FailureReason reason = result == null ? FailureReason.NOT_PRESENT : result.getFailureReason();
    if (reason == FailureReason.NOT_ACTIVE || reason == FailureReason.NOT_PRESENT) {
      return null;
    }
    return new QueryAnswer.Unavailable<>("IQv2 " + reason + ": " + result.getFailureMessage());
  }

  private static <R> StateQueryRequest<R> request(
      String store, Query<R> query, int partition, boolean active) {
    StateQueryRequest<R> request =
        StateQueryRequest.inStore(store).withQuery(query).withPartitions(Set.of(partition));
    return active ? request.requireActive() : request;
  }

  /**
   * How many records this instance's copy of the partition's store is behind its changelog; empty
   * when standbys may not answer (no broker round trip then) or no copy is here.
   *
   * <p>{@link LagInfo#offsetLag()} counts offsets, and under {@code exactly_once_v2} every
   * transaction that wrote to the changelog partition ends in a commit marker that takes one offset
   * and is no record. A standby that restored every committed record still reports a lag of 1: its
   * position stays before the marker of the last transaction (seen in {@code TopologyQueriesIT}).
   * That one offset is not counted; markers further back are (over-estimating the records behind,
   * so the bound errs on fresh).
   */
  private OptionalLong standbyRecordsBehind(KafkaStreams client, String store, int partition) {
    if (standbyMaxLag < 0) {
      return OptionalLong.empty();
    }
    Map<Integer, LagInfo> lags = client.allLocalStorePartitionLags().get(store);
    LagInfo lag = lags == null ? null : lags.get(partition);
    return lag == null ? OptionalLong.empty() : OptionalLong.of(Math.max(0, lag.offsetLag() - 1));
  }

  /** Every record of the device's slots in one partition's {@code device-state-store}. */
  private static List<StateViews.Stored> deviceEntries(
      KafkaStreams client, String deviceId, int partition, boolean active) {
    StoreQueryParameters<ReadOnlyWindowStore<Bytes, byte[]>> parameters =
        StoreQueryParameters.fromNameAndType(
                Names.DEVICE_STATE_STORE, QueryableStoreTypes.<Bytes, byte[]>windowStore())
            .withPartition(partition);
    ReadOnlyWindowStore<Bytes, byte[]> store =
        client.store(active ? parameters : parameters.enableStaleStores());
    byte[][] range = DeviceStateKeys.deviceRange(deviceId);
    List<StateViews.Stored> entries = new ArrayList<>();
    try (KeyValueIterator<Windowed<Bytes>, byte[]> all =
        store.fetch(
            Bytes.wrap(range[0]),
            Bytes.wrap(range[1]),
            Instant.EPOCH,
            Instant.ofEpochMilli(Long.MAX_VALUE))) {
      while (all.hasNext()) {
        KeyValue<Windowed<Bytes>, byte[]> next = all.next();
        entries.add(
            new StateViews.Stored(next.key.key().get(), next.value, next.key.window().start()));
      }
    }
    return entries;
  }
}
