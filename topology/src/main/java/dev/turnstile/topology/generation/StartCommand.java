package dev.turnstile.topology.generation;

import static dev.turnstile.topology.config.TopologyConfigModel.TOPIC_PREFIX;

import dev.turnstile.runtime.cli.ExitCode;
import dev.turnstile.runtime.topics.ClusterTopics;
import dev.turnstile.runtime.topics.ObservedTopic;
import dev.turnstile.runtime.topics.TopicDrift;
import dev.turnstile.runtime.topics.TopicHistory;
import dev.turnstile.runtime.topics.TopicProvisioner;
import dev.turnstile.runtime.topics.TopicSpec;
import dev.turnstile.runtime.topics.TopicsCommand;
import dev.turnstile.schemas.Generation;
import dev.turnstile.topology.TopologyProcess;
import dev.turnstile.topology.config.TopologyConfig;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import org.apache.kafka.clients.admin.Admin;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code turnstile generation start NAME}: creates the generation's output topics, says how much
 * history the raw topics hold, then runs the topology as that generation (the same process as
 * {@code turnstile topology}, until SIGTERM), reporting its lag until it has caught up.
 */
@Command(
    name = "start",
    mixinStandardHelpOptions = true,
    description = {
      "Runs the topology as generation NAME beside the others: its own application id, state and"
          + " output topics (created here if missing), reading the raw topics from their earliest"
          + " retained offset. The rules are those of --config: change one there. Runs until"
          + " stopped (Ctrl-C, SIGTERM) and reports its lag until it has caught up.",
      "On Kubernetes a generation is a Deployment instead (k8s/components/generation)."
    })
final class StartCommand implements Callable<Integer> {

  @CommandLine.ParentCommand GenerationCommand parent;
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;
  @Mixin GenerationCommand.Cluster cluster;

  @Parameters(index = "0", paramLabel = "NAME", description = "the generation, e.g. g2")
  String name;

  @Option(
      names = "--replicas",
      paramLabel = "N",
      description =
          "replication factor of the generation's topics (default: that of the raw topics)")
  Short replicas;

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    Generation generation = GenerationCommand.generation(spec, name);
    TopologyConfig config = cluster.config(generation, parent.environment);
    Generation configured =
        TopologyConfig.of(
                dev.turnstile.topology.config.TopologyConfigModel.MODEL.load(
                    cluster.config, withBootstrap(parent.environment)))
            .generation();
    if (!configured.isDefault() && !configured.equals(generation)) {
      throw new CommandLine.ParameterException(
          spec.commandLine(),
          "the configuration sets topology.generation=" + configured + ", not " + generation);
    }
    try (Admin admin = GenerationCommand.Cluster.admin(config)) {
      List<String> raw = Generation.rawInputs().stream().map(config::topic).toList();
      Map<String, ObservedTopic> rawTopics = ClusterTopics.describe(admin, raw, cluster.timeout());
      if (rawTopics.size() < raw.size()) {
        err.println(
            "turnstile generation: raw topics missing: "
                + raw.stream().filter(t -> !rawTopics.containsKey(t)).toList()
                + "; create them with turnstile topics");
        return ExitCode.TOPICS;
      }
      short factor = replicas != null ? replicas : (short) rawTopics.get(raw.get(0)).replicas();
      Set<String> own = Set.copyOf(Generation.outputs().stream().map(config::topic).toList());
      List<TopicSpec> specs =
          TopicSpec.catalogue(config.get(TOPIC_PREFIX), generation, factor).stream()
              .filter(s -> own.contains(s.name()))
              .toList();
      TopicProvisioner.Outcome topics =
          TopicProvisioner.run(admin, specs, TopicProvisioner.Mode.CREATE, cluster.timeout());
      topics.created().forEach(t -> out.println("created       " + t));
      topics.matching().forEach(t -> out.println("ok            " + t));
      topics.drift().forEach(d -> out.println("DRIFT         " + d));
      if (topics.drift().stream().anyMatch(StartCommand::movesRecords)) {
        err.println(
            "turnstile generation: the generation's topics differ from the catalogue in"
                + " partitions or cleanup.policy; retire it and start again");
        return ExitCode.TOPICS;
      }
      TopicsCommand.printHistory(out, TopicHistory.read(admin, raw, cluster.timeout()));
    }
    out.printf(
        "Starting generation %s: application id %s, outputs %s...%n",
        generation, config.applicationId(), config.topic(Generation.outputs().get(0)));
    out.flush();
    TopologyProcess process = TopologyProcess.start(config);
    out.printf("HTTP (probes, metrics, queries) on port %d%n", process.healthPort());
    out.flush();
    Runtime.getRuntime().addShutdownHook(new Thread(process::close, "generation-shutdown"));
    try (CatchUpWatch watch =
        CatchUpWatch.start(
            config,
            Duration.ofSeconds(10),
            line -> {
              out.println(line);
              out.flush();
            })) {
      int code = process.awaitExit();
      process.close();
      return code;
    }
  }

  /** Drift that changes where records go or whether they are kept (not a replication factor). */
  private static boolean movesRecords(TopicDrift drift) {
    return drift.isMissing()
        || drift.field().equals("partitions")
        || drift.field().equals("cleanup.policy");
  }

  private Map<String, String> withBootstrap(Map<String, String> environment) {
    if (cluster.bootstrap == null) {
      return environment;
    }
    Map<String, String> env = new java.util.HashMap<>(environment);
    env.put(
        dev.turnstile.runtime.config.ConfigModel.envName("kafka.bootstrap.servers"),
        cluster.bootstrap);
    return env;
  }
}
