package dev.turnstile.bench;

import dev.turnstile.schemas.Topic;
import dev.turnstile.schemas.TopicCatalogue;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/** The broker process of a benchmark and the admin calls the harness makes on it. */
final class Broker implements AutoCloseable {

  private final ChildJvm process;
  private final String bootstrap;
  private final Admin admin;

  private Broker(ChildJvm process, String bootstrap) {
    this.process = process;
    this.bootstrap = bootstrap;
    Properties props = new Properties();
    props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    this.admin = Admin.create(props);
  }

  static Broker start(Path dataDir, Path logDir) {
    ChildJvm jvm =
        ChildJvm.start(
            List.of("-Xmx1g"),
            BrokerMain.class.getName(),
            List.of(dataDir.toString()),
            logDir.resolve("broker.log"));
    return new Broker(jvm, jvm.await("BOOTSTRAP ", Duration.ofMinutes(2)));
  }

  String bootstrap() {
    return bootstrap;
  }

  long cpuNanos() {
    return process.cpuNanos();
  }

  /** Creates {@code topics} (catalogue layout, one replica) plus {@code extra} names. */
  void create(Collection<Topic> topics, Collection<String> extra) {
    create("", topics, extra);
  }

  /**
   * Creates {@code topics} under {@code prefix} (catalogue layout, one replica) plus {@code extra}
   * names as given.
   */
  void create(String prefix, Collection<Topic> topics, Collection<String> extra) {
    List<NewTopic> created = new ArrayList<>();
    for (Topic topic : topics) {
      NewTopic t = new NewTopic(topic.name(prefix), topic.partitions(), (short) 1);
      t.configs(Map.of("retention.ms", Long.toString(topic.retentionMs())));
      created.add(t);
    }
    for (String name : extra) {
      created.add(new NewTopic(name, TopicCatalogue.DEVICE_EVENTS_RAW.partitions(), (short) 1));
    }
    get(admin.createTopics(created).all());
  }

  /** Deletes every topic but {@code keep}, and waits until they are gone. */
  void deleteAllBut(Set<String> keep) {
    delete(name -> !keep.contains(name));
  }

  /** Deletes every topic {@code which} accepts, and waits until they are gone. */
  void delete(java.util.function.Predicate<String> which) {
    Set<String> names = get(admin.listTopics().names());
    List<String> delete = names.stream().filter(which).toList();
    if (delete.isEmpty()) {
      return;
    }
    get(admin.deleteTopics(delete).all());
    long deadline = System.nanoTime() + Duration.ofMinutes(1).toNanos();
    while (System.nanoTime() < deadline) {
      Set<String> left = get(admin.listTopics().names());
      if (delete.stream().noneMatch(left::contains)) {
        return;
      }
      pause();
    }
    throw new IllegalStateException("topics not deleted in time: " + delete);
  }

  /** End offsets of every partition of {@code topics} that exist. */
  Map<TopicPartition, Long> endOffsets(Collection<String> topics) {
    Set<String> existing = get(admin.listTopics().names());
    List<String> present = topics.stream().filter(existing::contains).toList();
    if (present.isEmpty()) {
      return Map.of();
    }
    Map<String, TopicDescription> described = get(admin.describeTopics(present).allTopicNames());
    Map<TopicPartition, OffsetSpec> request = new HashMap<>();
    described
        .values()
        .forEach(
            d ->
                d.partitions()
                    .forEach(
                        p ->
                            request.put(
                                new TopicPartition(d.name(), p.partition()), OffsetSpec.latest())));
    Map<TopicPartition, ListOffsetsResultInfo> offsets = get(admin.listOffsets(request).all());
    return offsets.entrySet().stream()
        .collect(Collectors.toMap(Map.Entry::getKey, e -> e.getValue().offset()));
  }

  /** Every topic name on the broker. */
  Set<String> topics() {
    return get(admin.listTopics().names());
  }

  /** The group's committed offsets; missing partitions count as 0. */
  Map<TopicPartition, Long> committed(String group) {
    Map<TopicPartition, OffsetAndMetadata> offsets =
        get(admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata());
    Map<TopicPartition, Long> result = new HashMap<>();
    offsets.forEach((tp, om) -> result.put(tp, om == null ? 0L : om.offset()));
    return result;
  }

  static void pause() {
    try {
      Thread.sleep(200);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  static <T> T get(org.apache.kafka.common.KafkaFuture<T> future) {
    try {
      return future.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    } catch (ExecutionException e) {
      throw new IllegalStateException(e.getCause().getMessage(), e.getCause());
    }
  }

  @Override
  public void close() {
    admin.close(Duration.ofSeconds(10));
    process.close();
  }
}
