package dev.turnstile.runtime.topics;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a running process knows about the topics it reads and writes: whether each exists as the
 * catalogue declares it (partition count and {@code cleanup.policy}), and whether one was recreated
 * or changed its partition count since the last check. A process is not ready, and the bridge
 * writes nothing to a topic, unless the last check that reached Kafka found it as declared.
 *
 * <p>Checks use the admin client, which never creates a topic; so a process that only checks and
 * refuses to write cannot make a broker auto-create a topic with its defaults.
 */
public final class TopicWatch {

  private static final Logger LOG = LoggerFactory.getLogger(TopicWatch.class);

  private final List<TopicSpec> expected;
  private final Map<String, ObservedTopic> lastSeen = new HashMap<>();
  private final Map<String, Integer> firstPartitions = new HashMap<>();
  private volatile Status status = Status.NOT_CHECKED;

  /**
   * The result of the last check.
   *
   * @param reachable whether that check got an answer from Kafka
   * @param problems per topic, what is wrong with it (missing, drift, a changed partition count);
   *     kept from the last check that got an answer
   * @param recreated topics whose id changed since the check before (deleted and created again)
   */
  public record Status(
      boolean reachable, Map<String, List<String>> problems, Set<String> recreated) {

    static final Status NOT_CHECKED =
        new Status(false, Map.of("*", List.of("not checked yet")), Set.of());

    public Status {
      problems = Map.copyOf(problems);
      recreated = Set.copyOf(recreated);
    }

    /** Every topic was found as declared by the last check that reached Kafka. */
    public boolean asDeclared() {
      return problems.isEmpty();
    }

    /** Whether {@code topic} may be written: found as declared by the last answered check. */
    public boolean writable(String topic) {
      return !problems.containsKey(topic) && !problems.containsKey("*");
    }

    /** One line per problem, for logs and errors. */
    public List<String> describe() {
      List<String> lines = new ArrayList<>();
      problems.forEach((topic, list) -> lines.addAll(list));
      lines.sort(null);
      return lines;
    }
  }

  public TopicWatch(List<TopicSpec> expected) {
    this.expected = List.copyOf(expected);
  }

  /** The topics watched. */
  public List<TopicSpec> expected() {
    return expected;
  }

  /** The last check's result; until the first check, nothing is writable. */
  public Status status() {
    return status;
  }

  /**
   * Describes the topics once and updates {@link #status()}. When Kafka does not answer, the topic
   * findings of the previous answered check are kept and {@code reachable} is false.
   */
  public synchronized Status check(Admin admin, Duration timeout) throws InterruptedException {
    Map<String, ObservedTopic> observed;
    try {
      observed =
          ClusterTopics.describe(admin, expected.stream().map(TopicSpec::name).toList(), timeout);
    } catch (ExecutionException | TimeoutException e) {
      Status previous = status;
      status = new Status(false, previous.problems(), Set.of());
      return status;
    }
    Map<String, List<String>> problems = new HashMap<>();
    Set<String> recreated = new HashSet<>();
    for (TopicSpec spec : expected) {
      ObservedTopic now = observed.get(spec.name());
      List<String> list = new ArrayList<>();
      ClusterTopics.drift(spec, now, false).forEach(d -> list.add(d.toString()));
      ObservedTopic before = lastSeen.get(spec.name());
      if (now != null && before != null) {
        if (!now.topicId().equals(before.topicId())) {
          recreated.add(spec.name());
          LOG.warn("topic {} was deleted and created again (new topic id)", spec.name());
        } else if (now.partitions() != before.partitions()) {
          // Keys now hash to other partitions: one device's events would be split between two
          // tasks, so its sessions and merges break. Noticed loudly, never followed silently.
          String change =
              spec.name()
                  + ": partition count changed from "
                  + before.partitions()
                  + " to "
                  + now.partitions()
                  + " while running";
          LOG.error("{}; restart once the topic is as declared again", change);
        }
      }
      if (now != null) {
        lastSeen.put(spec.name(), now);
        // A topic the catalogue does not size is held to the count it had when first seen.
        int first = firstPartitions.computeIfAbsent(spec.name(), n -> now.partitions());
        if (spec.partitions() == 0 && now.partitions() != first) {
          list.add(
              spec.name()
                  + ": partition count is "
                  + now.partitions()
                  + ", was "
                  + first
                  + " when this process first saw it");
        }
      }
      if (!list.isEmpty()) {
        problems.put(spec.name(), list);
      }
    }
    Status next = new Status(true, problems, recreated);
    if (!next.problems().equals(status.problems())) {
      if (next.asDeclared()) {
        LOG.info("topics as declared: {}", expected.stream().map(TopicSpec::name).toList());
      } else {
        LOG.warn(
            "topics not as declared (not ready, nothing written to them): {}", next.describe());
      }
    }
    status = next;
    return next;
  }
}
