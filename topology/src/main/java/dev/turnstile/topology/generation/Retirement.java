package dev.turnstile.topology.generation;

import dev.turnstile.runtime.topics.ClusterTopics;
import dev.turnstile.schemas.Generation;
import dev.turnstile.topology.config.TopologyConfig;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.DeleteConsumerGroupsOptions;
import org.apache.kafka.clients.admin.DeleteTopicsOptions;
import org.apache.kafka.clients.admin.ListTopicsOptions;

/**
 * What retiring a generation deletes, found before anything is: its output topics, its internal
 * topics (Kafka Streams names them {@code <application.id>-<name>-changelog} or {@code
 * -repartition}) and its consumer group (the application id). The raw topics are never among them.
 * Left behind: the pods' local state (an {@code emptyDir} goes with its pod; elsewhere delete
 * {@code <topology.state-dir>/<application id>}) and the transactional ids, which the brokers
 * expire on their own ({@code transactional.id.expiration.ms}, 7 days by default).
 *
 * @param outputs the generation's output topics that exist
 * @param internal its internal topics
 * @param group its consumer group, or null when there is none
 * @param members the group's members: a running generation is not retired
 */
record Retirement(
    Generation generation, List<String> outputs, List<String> internal, String group, int members) {

  boolean running() {
    return members > 0;
  }

  static Retirement plan(Admin admin, TopologyConfig config, Duration timeout)
      throws InterruptedException, ExecutionException, TimeoutException {
    List<String> names = Generation.outputs().stream().map(config::topic).toList();
    var existing = ClusterTopics.describe(admin, names, timeout).keySet();
    List<String> outputs = names.stream().filter(existing::contains).toList();
    String applicationId = config.applicationId();
    List<String> internal =
        admin
            .listTopics(new ListTopicsOptions().timeoutMs((int) timeout.toMillis()))
            .names()
            .get(timeout.toMillis(), TimeUnit.MILLISECONDS)
            .stream()
            .filter(
                name ->
                    name.startsWith(applicationId + "-")
                        && (name.endsWith("-changelog") || name.endsWith("-repartition")))
            .sorted()
            .toList();
    GenerationStatus status = GenerationStatus.read(admin, config, timeout);
    boolean groupExists = !status.groupState().equals("DEAD");
    return new Retirement(
        config.generation(),
        outputs,
        internal,
        groupExists ? applicationId : null,
        status.members());
  }

  void print(PrintWriter out) {
    out.printf("Retiring generation %s deletes:%n", generation);
    outputs.forEach(t -> out.println("  output topic    " + t));
    internal.forEach(t -> out.println("  internal topic  " + t));
    if (group != null) {
      out.println("  consumer group  " + group);
    }
    if (outputs.isEmpty() && internal.isEmpty() && group == null) {
      out.println("  nothing: no topic or consumer group of it exists");
    }
    out.flush();
  }

  void execute(Admin admin, Duration timeout)
      throws InterruptedException, ExecutionException, TimeoutException {
    List<String> topics = new ArrayList<>(outputs);
    topics.addAll(internal);
    if (!topics.isEmpty()) {
      admin
          .deleteTopics(topics, new DeleteTopicsOptions().timeoutMs((int) timeout.toMillis()))
          .all()
          .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }
    if (group != null) {
      admin
          .deleteConsumerGroups(
              List.of(group), new DeleteConsumerGroupsOptions().timeoutMs((int) timeout.toMillis()))
          .all()
          .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }
  }
}
