package dev.turnstile.runtime.topics;

import dev.turnstile.runtime.cli.BadArguments;
import dev.turnstile.runtime.cli.ExitCode;
import dev.turnstile.schemas.Generation;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code turnstile topics}: creates the catalogue's topics on a cluster and reports drift. Exit
 * codes: {@link ExitCode#OK} when every topic exists as declared (or, with {@code --dry-run}, would
 * be created), {@link ExitCode#TOPICS} when a topic is missing ({@code --check}) or differs, {@link
 * ExitCode#FAILURE} when the cluster does not answer or refuses, {@link ExitCode#CONFIG} for a bad
 * command line.
 */
@Command(
    name = "turnstile topics",
    mixinStandardHelpOptions = true,
    usageHelpAutoWidth = true,
    description = {
      "Creates every topic of the catalogue that is missing (an existing topic is never changed)"
          + " and reports how existing ones differ: partitions, replication factor, retention.ms,"
          + " cleanup.policy, min.insync.replicas (2 from 3 replicas on). With --generation, the"
          + " topics of that generation of the topology: the shared raw topics and its own"
          + " outputs. With --check, also how much history the raw topics hold, which is what a"
          + " new generation can reprocess.",
      "Exit codes: 0 all as declared, 3 missing or differing topics, 1 Kafka failed, 2 usage."
    })
public final class TopicsCommand implements Callable<Integer> {

  @Option(
      names = "--bootstrap",
      paramLabel = "HOST:PORT",
      description = "Kafka bootstrap servers (default: kafka.bootstrap.servers of --config)")
  String bootstrap;

  @Option(
      names = "--config",
      paramLabel = "FILE",
      description =
          "a bridge or topology properties file: its kafka.bootstrap.servers, kafka.* client"
              + " settings (security) and topic.prefix are used")
  Path config;

  @Option(
      names = "--prefix",
      paramLabel = "PREFIX",
      description = "topic name prefix (default: topic.prefix of --config, else none)")
  String prefix;

  @Option(
      names = "--generation",
      paramLabel = "NAME",
      description =
          "the topics of this generation of the topology (docs/changing-a-rule.md; default:"
              + " topology.generation of --config, else the generation without a name)")
  String generation;

  @Option(
      names = "--replicas",
      paramLabel = "N",
      description = "replication factor of created topics (default: ${DEFAULT-VALUE})")
  short replicas = 3;

  @Option(
      names = "--dry-run",
      description = "only ask the brokers to validate what would be created; change nothing")
  boolean dryRun;

  @Option(names = "--check", description = "change nothing; exit 3 unless all exist as declared")
  boolean check;

  @Option(
      names = "--timeout-ms",
      paramLabel = "MS",
      description = "longest wait for each answer from Kafka (default: ${DEFAULT-VALUE})")
  long timeoutMs = 30_000;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  public static void main(String[] args) {
    System.exit(
        execute(
            new PrintWriter(System.out, true, StandardCharsets.UTF_8),
            new PrintWriter(System.err, true, StandardCharsets.UTF_8),
            args));
  }

  /** Runs the command as {@code main} would, printing to the writers; returns its exit code. */
  public static int execute(PrintWriter out, PrintWriter err, String... args) {
    CommandLine line = new CommandLine(new TopicsCommand());
    line.setOut(out);
    line.setErr(err);
    line.setExitCodeExceptionMapper(e -> ExitCode.FAILURE);
    BadArguments.refuseWithUsage(line, "turnstile topics");
    return line.execute(args);
  }

  @Override
  public Integer call() throws InterruptedException {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    if (dryRun && check) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "--dry-run and --check exclude each other");
    }
    if (replicas < 1) {
      throw new CommandLine.ParameterException(spec.commandLine(), "--replicas must be >= 1");
    }
    Map<String, Object> client = clientProperties();
    if (!client.containsKey(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG)) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "--bootstrap (or kafka.bootstrap.servers in --config) is required");
    }
    TopicProvisioner.Mode mode =
        check
            ? TopicProvisioner.Mode.CHECK
            : dryRun ? TopicProvisioner.Mode.DRY_RUN : TopicProvisioner.Mode.CREATE;
    Generation named;
    try {
      named =
          generation == null || generation.isBlank()
              ? Generation.DEFAULT
              : Generation.named(generation.strip());
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "--generation: " + e.getMessage());
    }
    String deploymentPrefix = prefix == null ? "" : prefix;
    List<TopicSpec> specs = TopicSpec.catalogue(deploymentPrefix, named, replicas);
    TopicProvisioner.Outcome outcome;
    List<TopicHistory> history = List.of();
    try (Admin admin = Admin.create(client)) {
      outcome = TopicProvisioner.run(admin, specs, mode, Duration.ofMillis(timeoutMs));
      if (check) {
        history =
            TopicHistory.read(
                admin,
                Generation.rawInputs().stream().map(t -> t.name(deploymentPrefix)).toList(),
                Duration.ofMillis(timeoutMs));
      }
    } catch (TimeoutException e) {
      err.println(
          "turnstile topics: Kafka at "
              + client.get(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG)
              + " did not answer within "
              + timeoutMs
              + " ms");
      return ExitCode.FAILURE;
    } catch (ExecutionException e) {
      err.println("turnstile topics: Kafka refused: " + e.getCause().getMessage());
      return ExitCode.FAILURE;
    }
    print(out, mode, outcome);
    printHistory(out, history);
    return outcome.clean() ? ExitCode.OK : ExitCode.TOPICS;
  }

  /**
   * How much the raw topics hold, and a warning for each whose oldest records are deleted: a
   * generation started now cannot reprocess those, though the generations already running saw them
   * (their sessions, dedup ids and merges reflect them).
   */
  public static void printHistory(PrintWriter out, List<TopicHistory> history) {
    for (TopicHistory topic : history) {
      out.println("history       " + topic.describe());
    }
    for (TopicHistory topic : history) {
      if (!topic.complete()) {
        out.printf(
            "WARNING       %s: %,d offsets are deleted already (retention.ms); a generation"
                + " started now begins at its oldest retained record%s and cannot see what came"
                + " before, which the running generation did see: compare outputs only from"
                + " there on (docs/changing-a-rule.md, \"History\")%n",
            topic.topic(),
            topic.deletedOffsets(),
            topic.oldestTimestamp().isPresent()
                ? ", " + java.time.Instant.ofEpochMilli(topic.oldestTimestamp().getAsLong())
                : "");
      }
    }
    out.flush();
  }

  private static void print(
      PrintWriter out, TopicProvisioner.Mode mode, TopicProvisioner.Outcome o) {
    String createdWord = mode == TopicProvisioner.Mode.DRY_RUN ? "would create" : "created";
    o.created().forEach(name -> out.println(createdWord + "  " + name));
    o.matching().forEach(name -> out.println("ok            " + name));
    o.drift().forEach(d -> out.println("DRIFT         " + d));
    if (!o.clean()) {
      out.println(
          o.drift().stream().allMatch(TopicDrift::isMissing)
              ? "Missing topics: run without --check to create them."
              : "Topics differ from the catalogue. Configs can be changed with kafka-configs;"
                  + " a partition count cannot shrink, and growing it moves keys to other"
                  + " partitions (device sessions and merges would split): recreate the topic"
                  + " while nothing runs, or publish a new major version.");
    }
    out.flush();
  }

  /** Admin client settings: the file's {@code kafka.*} keys, then the flags. */
  private Map<String, Object> clientProperties() {
    Map<String, Object> client = new HashMap<>();
    if (config != null) {
      Properties file = new Properties();
      try (Reader reader = Files.newBufferedReader(config, StandardCharsets.UTF_8)) {
        file.load(reader);
      } catch (IOException e) {
        throw new CommandLine.ParameterException(
            spec.commandLine(), "--config: cannot read " + config + ": " + e.getMessage());
      }
      for (String key : file.stringPropertyNames()) {
        String value = file.getProperty(key).trim();
        if (key.equals("topic.prefix") && prefix == null) {
          prefix = value;
        } else if (key.equals("topology.generation") && generation == null) {
          generation = value;
        } else if (key.startsWith("kafka.")
            && !key.startsWith("kafka.producer.")
            && !key.startsWith("kafka.streams.")) {
          String clientKey = key.substring("kafka.".length());
          if (AdminClientConfig.configNames().contains(clientKey)) {
            client.put(clientKey, value);
          }
        }
      }
    }
    if (bootstrap != null) {
      client.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    }
    client.put(AdminClientConfig.CLIENT_ID_CONFIG, "turnstile-topics");
    return client;
  }
}
