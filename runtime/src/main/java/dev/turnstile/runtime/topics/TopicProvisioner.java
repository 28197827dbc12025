package dev.turnstile.runtime.topics;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.CreateTopicsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.errors.TopicExistsException;

/**
 * Brings a cluster's topics to the catalogue: creates the missing ones (idempotent: an existing
 * topic is never changed) and reports how existing ones differ. Partitions can only grow and
 * growing them moves keys to other partitions, so drift is reported, never "fixed".
 */
public final class TopicProvisioner {

  /** What a run does. */
  public enum Mode {
    /** Create missing topics, report drift of the others. */
    CREATE,
    /** Ask the brokers to validate the creation of missing topics; change nothing. */
    DRY_RUN,
    /** Change nothing; a missing topic is drift. */
    CHECK
  }

  /**
   * What a run found and did.
   *
   * @param created topics created (or, in a dry run, that would be)
   * @param matching topics that already existed as declared
   * @param drift differences that remain, missing topics included in {@link Mode#CHECK}
   */
  public record Outcome(List<String> created, List<String> matching, List<TopicDrift> drift) {

    public boolean clean() {
      return drift.isEmpty();
    }
  }

  private TopicProvisioner() {}

  /**
   * @throws TimeoutException when the cluster does not answer within {@code timeout}
   * @throws ExecutionException when it refuses a request (authorization, too few brokers for the
   *     replication factor)
   */
  public static Outcome run(Admin admin, List<TopicSpec> specs, Mode mode, Duration timeout)
      throws InterruptedException, ExecutionException, TimeoutException {
    Map<String, ObservedTopic> before =
        ClusterTopics.describe(admin, specs.stream().map(TopicSpec::name).toList(), timeout);
    List<TopicSpec> missing = specs.stream().filter(s -> !before.containsKey(s.name())).toList();
    List<String> created = new ArrayList<>();
    if (mode != Mode.CHECK && !missing.isEmpty()) {
      created.addAll(create(admin, missing, mode == Mode.DRY_RUN, timeout));
    }
    List<String> matching = new ArrayList<>();
    List<TopicDrift> drift = new ArrayList<>();
    for (TopicSpec spec : specs) {
      ObservedTopic observed = before.get(spec.name());
      if (observed == null && created.contains(spec.name())) {
        continue;
      }
      List<TopicDrift> differences = ClusterTopics.drift(spec, observed, true);
      if (differences.isEmpty()) {
        matching.add(spec.name());
      }
      drift.addAll(differences);
    }
    return new Outcome(created, matching, drift);
  }

  private static List<String> create(
      Admin admin, List<TopicSpec> specs, boolean validateOnly, Duration timeout)
      throws InterruptedException, ExecutionException, TimeoutException {
    List<String> created = new ArrayList<>();
    for (TopicSpec spec : specs) {
      NewTopic topic =
          new NewTopic(spec.name(), spec.partitions(), spec.replicas()).configs(spec.configs());
      try {
        admin
            .createTopics(
                List.of(topic),
                new CreateTopicsOptions()
                    .validateOnly(validateOnly)
                    .timeoutMs((int) timeout.toMillis()))
            .all()
            .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        created.add(spec.name());
      } catch (ExecutionException e) {
        // Another run created it meanwhile: it is compared like any existing topic next time.
        if (!(e.getCause() instanceof TopicExistsException)) {
          throw e;
        }
      }
    }
    return created;
  }
}
