package dev.turnstile.runtime.topics;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.TopicConfig;

/**
 * How much history a topic holds: per partition, the earliest retained offset and the timestamp of
 * the record there, and the end offset; with the topic's {@code retention.ms}. A new generation of
 * the topology reads the raw topics from their earliest retained offset, so this is what it can
 * see: offsets below the earliest one were deleted by retention and are gone for it.
 *
 * @param topic the topic's full name
 * @param retentionMs its {@code retention.ms}, -1 for forever, null when unknown
 * @param partitions each partition, in partition order
 */
public record TopicHistory(String topic, Long retentionMs, List<PartitionHistory> partitions) {

  /**
   * @param earliestOffset the log start offset: records below it are deleted
   * @param earliestTimestamp the timestamp of the earliest retained record, -1 when none is left
   * @param endOffset the offset the next record will get
   */
  public record PartitionHistory(
      int partition, long earliestOffset, long earliestTimestamp, long endOffset) {}

  public TopicHistory {
    partitions = List.copyOf(partitions);
  }

  /** Offsets deleted by retention, over all partitions (transaction markers count as one each). */
  public long deletedOffsets() {
    return partitions.stream().mapToLong(PartitionHistory::earliestOffset).sum();
  }

  /** Offsets still retained, over all partitions. */
  public long retainedOffsets() {
    return partitions.stream().mapToLong(p -> p.endOffset() - p.earliestOffset()).sum();
  }

  /** Whether nothing was ever deleted: a generation started now sees every record ever written. */
  public boolean complete() {
    return deletedOffsets() == 0;
  }

  /** The timestamp of the oldest retained record (epoch ms), if any record is retained. */
  public OptionalLong oldestTimestamp() {
    return partitions.stream()
        .mapToLong(PartitionHistory::earliestTimestamp)
        .filter(t -> t >= 0)
        .min();
  }

  /** One line saying how much history the topic holds. */
  public String describe() {
    String retention =
        retentionMs == null
            ? "retention.ms unknown"
            : retentionMs < 0
                ? "retention.ms -1 (forever)"
                : "retention.ms " + retentionMs + " (" + Duration.ofMillis(retentionMs) + ")";
    String oldest =
        oldestTimestamp().isPresent()
            ? "oldest retained record " + Instant.ofEpochMilli(oldestTimestamp().getAsLong())
            : "no record retained";
    String deleted =
        complete()
            ? "nothing deleted yet"
            : String.format(
                "%,d offsets deleted on %d of %d partitions",
                deletedOffsets(),
                partitions.stream().filter(p -> p.earliestOffset() > 0).count(),
                partitions.size());
    return String.format(
        "%s: %s; %s; %,d offsets retained, %s",
        topic, retention, oldest, retainedOffsets(), deleted);
  }

  /**
   * Reads the history of {@code topics} with the admin client (which never creates a topic); a
   * topic that does not exist is left out.
   *
   * @throws TimeoutException when the cluster does not answer within {@code timeout}
   * @throws ExecutionException on any other failure (authorization, for example)
   */
  public static List<TopicHistory> read(Admin admin, Collection<String> topics, Duration timeout)
      throws InterruptedException, ExecutionException, TimeoutException {
    Map<String, ObservedTopic> observed = ClusterTopics.describe(admin, topics, timeout);
    List<TopicPartition> partitions = new ArrayList<>();
    observed
        .values()
        .forEach(
            t -> {
              for (int p = 0; p < t.partitions(); p++) {
                partitions.add(new TopicPartition(t.name(), p));
              }
            });
    Map<TopicPartition, ListOffsetsResultInfo> earliest =
        offsets(admin, partitions, OffsetSpec.earliest(), timeout);
    // The first offset whose timestamp is at least 0: the earliest retained record, with its time.
    Map<TopicPartition, ListOffsetsResultInfo> first =
        offsets(admin, partitions, OffsetSpec.forTimestamp(0), timeout);
    Map<TopicPartition, ListOffsetsResultInfo> end =
        offsets(admin, partitions, OffsetSpec.latest(), timeout);
    List<TopicHistory> histories = new ArrayList<>();
    for (String name : topics) {
      ObservedTopic topic = observed.get(name);
      if (topic == null) {
        continue;
      }
      List<PartitionHistory> history = new ArrayList<>();
      for (int p = 0; p < topic.partitions(); p++) {
        TopicPartition partition = new TopicPartition(name, p);
        ListOffsetsResultInfo firstRecord = first.get(partition);
        history.add(
            new PartitionHistory(
                p,
                earliest.get(partition).offset(),
                firstRecord == null || firstRecord.offset() < 0 ? -1 : firstRecord.timestamp(),
                end.get(partition).offset()));
      }
      String retention = topic.configs().get(TopicConfig.RETENTION_MS_CONFIG);
      histories.add(
          new TopicHistory(name, retention == null ? null : Long.parseLong(retention), history));
    }
    return histories;
  }

  private static Map<TopicPartition, ListOffsetsResultInfo> offsets(
      Admin admin, List<TopicPartition> partitions, OffsetSpec spec, Duration timeout)
      throws InterruptedException, ExecutionException, TimeoutException {
    Map<TopicPartition, OffsetSpec> request = new HashMap<>();
    partitions.forEach(p -> request.put(p, spec));
    if (request.isEmpty()) {
      return Map.of();
    }
    return admin
        .listOffsets(
            request,
            new ListOffsetsOptions(IsolationLevel.READ_UNCOMMITTED)
                .timeoutMs((int) timeout.toMillis()))
        .all()
        .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }
}
