package dev.turnstile.topology.generation;

import dev.turnstile.schemas.Generation;
import dev.turnstile.topology.adapter.streams.TurnstileTopology;
import dev.turnstile.topology.config.TopologyConfig;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.DescribeConsumerGroupsOptions;
import org.apache.kafka.clients.admin.ListConsumerGroupOffsetsOptions;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.GroupIdNotFoundException;

/**
 * Where a generation stands: for each partition it reads, the offset its consumer group committed,
 * the partition's end and the lag between them; whether it has caught up (no lag anywhere); how
 * many offsets it has written to each of its output topics; and whether its consumer group has
 * members (the generation is running).
 *
 * @param applicationId the generation's Kafka Streams application id, which is its consumer group
 * @param groupState the consumer group's state as the coordinator reports it ({@code STABLE},
 *     {@code EMPTY} when nothing runs, {@code DEAD} when it never ran or was retired)
 * @param members members of the group: running stream threads' consumers
 * @param inputs every partition the generation reads: the raw topics and its own hops
 * @param outputs offsets in each topic the generation writes
 */
public record GenerationStatus(
    Generation generation,
    String applicationId,
    String groupState,
    int members,
    List<InputLag> inputs,
    List<OutputSize> outputs) {

  /**
   * @param committed the committed offset, -1 when the generation committed none yet
   * @param start the partition's earliest retained offset
   * @param end its last stable offset (the end a {@code read_committed} consumer reaches)
   */
  public record InputLag(String topic, int partition, long committed, long start, long end) {

    /** Offsets left to read: from the committed offset, or from the start when none is. */
    public long lag() {
      return Math.max(0, end - (committed < 0 ? start : committed));
    }
  }

  /**
   * @param offsets offsets written and retained, transaction markers included (each committed
   *     transaction adds one per partition it wrote to)
   */
  public record OutputSize(String topic, long offsets) {}

  public GenerationStatus {
    inputs = List.copyOf(inputs);
    outputs = List.copyOf(outputs);
  }

  /** Offsets left to read over every input partition. */
  public long lag() {
    return inputs.stream().mapToLong(InputLag::lag).sum();
  }

  /** Offsets of the raw topics the generation has read (committed), over every partition. */
  public long rawOffsetsRead() {
    TreeSet<String> raw = new TreeSet<>();
    inputs.stream()
        .map(InputLag::topic)
        .filter(t -> Generation.rawInputs().stream().anyMatch(r -> t.endsWith(r.baseName())))
        .forEach(raw::add);
    return inputs.stream()
        .filter(i -> raw.contains(i.topic()))
        .mapToLong(i -> Math.max(0, i.committed() - i.start()))
        .sum();
  }

  /** Whether every partition it reads is read to its end. */
  public boolean caughtUp() {
    return lag() == 0;
  }

  /**
   * The topics {@code config}'s topology reads, from the topology itself: the raw topics and the
   * generation's own hop ({@code merge-inputs.v1}).
   */
  static List<String> inputTopics(TopologyConfig config) {
    return List.copyOf(TurnstileTopology.sourceTopics(TurnstileTopology.build(config)));
  }

  /**
   * Reads the status of {@code config}'s generation with the admin client only.
   *
   * @throws TimeoutException when the cluster does not answer within {@code timeout}
   * @throws ExecutionException on any other failure (authorization, a missing topic)
   */
  public static GenerationStatus read(Admin admin, TopologyConfig config, Duration timeout)
      throws InterruptedException, ExecutionException, TimeoutException {
    String group = config.applicationId();
    List<TopicPartition> partitions = new ArrayList<>();
    List<String> topics = inputTopics(config);
    Map<String, Integer> counts = partitionCounts(admin, topics, timeout);
    for (String topic : topics) {
      for (int p = 0; p < counts.getOrDefault(topic, 0); p++) {
        partitions.add(new TopicPartition(topic, p));
      }
    }
    Map<TopicPartition, OffsetAndMetadata> committed =
        admin
            .listConsumerGroupOffsets(
                group, new ListConsumerGroupOffsetsOptions().timeoutMs(millis(timeout)))
            .partitionsToOffsetAndMetadata()
            .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    Map<TopicPartition, ListOffsetsResultInfo> start =
        offsets(admin, partitions, OffsetSpec.earliest(), IsolationLevel.READ_COMMITTED, timeout);
    Map<TopicPartition, ListOffsetsResultInfo> end =
        offsets(admin, partitions, OffsetSpec.latest(), IsolationLevel.READ_COMMITTED, timeout);
    List<InputLag> inputs = new ArrayList<>();
    for (TopicPartition partition : partitions) {
      OffsetAndMetadata offset = committed.get(partition);
      inputs.add(
          new InputLag(
              partition.topic(),
              partition.partition(),
              offset == null ? -1 : offset.offset(),
              start.get(partition).offset(),
              end.get(partition).offset()));
    }
    ConsumerGroupDescription description = describe(admin, group, timeout);
    return new GenerationStatus(
        config.generation(),
        group,
        description == null ? "DEAD" : description.groupState().name(),
        description == null ? 0 : description.members().size(),
        inputs,
        outputs(admin, config, timeout));
  }

  private static List<OutputSize> outputs(Admin admin, TopologyConfig config, Duration timeout)
      throws InterruptedException, ExecutionException, TimeoutException {
    List<String> names = Generation.outputs().stream().map(config::topic).toList();
    Map<String, Integer> counts = partitionCounts(admin, names, timeout);
    List<TopicPartition> partitions = new ArrayList<>();
    counts.forEach(
        (topic, n) -> {
          for (int p = 0; p < n; p++) {
            partitions.add(new TopicPartition(topic, p));
          }
        });
    Map<TopicPartition, ListOffsetsResultInfo> start =
        offsets(admin, partitions, OffsetSpec.earliest(), IsolationLevel.READ_UNCOMMITTED, timeout);
    Map<TopicPartition, ListOffsetsResultInfo> end =
        offsets(admin, partitions, OffsetSpec.latest(), IsolationLevel.READ_UNCOMMITTED, timeout);
    List<OutputSize> outputs = new ArrayList<>();
    for (String name : names) {
      long offsets = 0;
      for (TopicPartition partition : partitions) {
        if (partition.topic().equals(name)) {
          offsets += end.get(partition).offset() - start.get(partition).offset();
        }
      }
      outputs.add(new OutputSize(name, counts.containsKey(name) ? offsets : -1));
    }
    return outputs;
  }

  private static Map<String, Integer> partitionCounts(
      Admin admin, List<String> topics, Duration timeout)
      throws InterruptedException, ExecutionException, TimeoutException {
    Map<String, Integer> counts = new HashMap<>();
    dev.turnstile.runtime.topics.ClusterTopics.describe(admin, topics, timeout)
        .forEach((name, topic) -> counts.put(name, topic.partitions()));
    return counts;
  }

  private static Map<TopicPartition, ListOffsetsResultInfo> offsets(
      Admin admin,
      List<TopicPartition> partitions,
      OffsetSpec spec,
      IsolationLevel isolation,
      Duration timeout)
      throws InterruptedException, ExecutionException, TimeoutException {
    if (partitions.isEmpty()) {
      return Map.of();
    }
    Map<TopicPartition, OffsetSpec> request = new HashMap<>();
    partitions.forEach(p -> request.put(p, spec));
    return admin
        .listOffsets(request, new ListOffsetsOptions(isolation).timeoutMs(millis(timeout)))
        .all()
        .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  private static ConsumerGroupDescription describe(Admin admin, String group, Duration timeout)
      throws InterruptedException, ExecutionException, TimeoutException {
    try {
      return admin
          .describeConsumerGroups(
              List.of(group), new DescribeConsumerGroupsOptions().timeoutMs(millis(timeout)))
          .all()
          .get(timeout.toMillis(), TimeUnit.MILLISECONDS)
          .get(group);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof GroupIdNotFoundException) {
        return null;
      }
      throw e;
    }
  }

  private static int millis(Duration timeout) {
    return (int) Math.min(Integer.MAX_VALUE, timeout.toMillis());
  }

  /** The status as {@code turnstile generation status} prints it. */
  public void print(PrintWriter out) {
    out.printf(
        "generation %s: application id and consumer group %s, %s with %d member%s%n",
        generation, applicationId, groupState, members, members == 1 ? "" : "s");
    out.printf("%-40s %9s %12s %12s %12s%n", "input", "partition", "committed", "end", "lag");
    for (InputLag input : inputs) {
      out.printf(
          "%-40s %9d %12s %,12d %,12d%n",
          input.topic(),
          input.partition(),
          input.committed() < 0 ? "none" : String.format("%,d", input.committed()),
          input.end(),
          input.lag());
    }
    long behind = inputs.stream().filter(i -> i.lag() > 0).count();
    out.println(
        caughtUp()
            ? "CAUGHT UP: every partition it reads is read to its end"
            : String.format(
                "NOT CAUGHT UP: %,d offsets to read on %d partition%s",
                lag(), behind, behind == 1 ? "" : "s"));
    out.println("outputs (offsets written and retained, transaction markers included)");
    for (OutputSize output : outputs) {
      out.printf(
          "%-40s %s%n",
          output.topic(),
          output.offsets() < 0 ? "missing" : String.format("%,d", output.offsets()));
    }
    out.flush();
  }
}
