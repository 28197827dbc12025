package dev.turnstile.topology.generation;

import static dev.turnstile.topology.config.TopologyConfigModel.TOPIC_PREFIX;

import dev.turnstile.runtime.cli.BadArguments;
import dev.turnstile.runtime.cli.ExitCode;
import dev.turnstile.runtime.config.ConfigModel;
import dev.turnstile.runtime.config.InvalidConfigurationException;
import dev.turnstile.schemas.Generation;
import dev.turnstile.schemas.Json;
import dev.turnstile.topology.config.TopologyConfig;
import dev.turnstile.topology.config.TopologyConfigModel;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code turnstile generation start|status|diff|retire}: runs and compares generations of the
 * topology (docs/changing-a-rule.md). Exit codes are {@link ExitCode}'s: 0 done, 1 Kafka failed or
 * refused, 2 bad command line or configuration (or a retirement not confirmed), 3 topics missing.
 */
@Command(
    name = "turnstile generation",
    mixinStandardHelpOptions = true,
    usageHelpAutoWidth = true,
    subcommands = {
      StartCommand.class,
      GenerationCommand.Status.class,
      GenerationCommand.Diff.class,
      GenerationCommand.Retire.class
    },
    description = {
      "Generations of the topology: each with its own application id, state and output topics,"
          + " all reading the same raw topics. Change a rule by starting a new generation beside"
          + " the running one, compare their outputs, move readers, retire the old one.",
      "The generation without a name (topology.generation empty) is addressed as 'default'."
    })
public final class GenerationCommand implements Runnable {

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  /** Read by the subcommands; the process's own unless a test gives others. */
  Map<String, String> environment = System.getenv();

  BufferedReader console =
      new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  public static void main(String[] args) {
    System.exit(
        execute(
            new PrintWriter(System.out, true, StandardCharsets.UTF_8),
            new PrintWriter(System.err, true, StandardCharsets.UTF_8),
            System.getenv(),
            new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)),
            args));
  }

  /**
   * Runs the command as {@code main} would with {@code environment} as the process environment and
   * {@code console} as its standard input; returns its exit code.
   */
  public static int execute(
      PrintWriter out,
      PrintWriter err,
      Map<String, String> environment,
      BufferedReader console,
      String... args) {
    GenerationCommand root = new GenerationCommand();
    root.environment = environment;
    root.console = console;
    CommandLine line = new CommandLine(root);
    line.setOut(out);
    line.setErr(err);
    line.setExecutionExceptionHandler(
        (e, cmd, parsed) -> {
          if (e instanceof InvalidConfigurationException invalid) {
            err.println("turnstile generation: configuration error");
            invalid.problems().forEach(p -> err.println("  " + p));
            return ExitCode.CONFIG;
          }
          if (e instanceof TimeoutException || e instanceof ExecutionException) {
            err.println(
                "turnstile generation: Kafka "
                    + (e instanceof TimeoutException ? "did not answer: " : "refused: ")
                    + (e.getCause() == null ? e.getMessage() : e.getCause().getMessage()));
            return ExitCode.FAILURE;
          }
          throw e;
        });
    BadArguments.refuseWithUsage(line, "turnstile generation");
    return line.execute(args);
  }

  /** Where the cluster is and how it is named: the topology's own configuration. */
  static final class Cluster {
    @Option(
        names = "--config",
        paramLabel = "FILE",
        description =
            "topology properties file, as for turnstile topology (repeat to layer files):"
                + " kafka.bootstrap.servers, kafka.* security, topic.prefix,"
                + " topology.application-id; TURNSTILE_<KEY> environment variables override them")
    List<Path> config = new ArrayList<>();

    @Option(
        names = "--bootstrap",
        paramLabel = "HOST:PORT",
        description = "Kafka bootstrap servers (default: kafka.bootstrap.servers of --config)")
    String bootstrap;

    @Option(
        names = "--timeout-ms",
        paramLabel = "MS",
        description = "longest wait for Kafka in each step (default: ${DEFAULT-VALUE})")
    long timeoutMs = 120_000;

    /**
     * The configuration of {@code generation}: the files and environment, with the bootstrap
     * servers of {@code --bootstrap} and the generation of the argument.
     *
     * @throws InvalidConfigurationException naming each bad key
     */
    TopologyConfig config(Generation generation, Map<String, String> environment) {
      Map<String, String> env = new HashMap<>(environment);
      if (bootstrap != null) {
        env.put(ConfigModel.envName(TopologyConfigModel.BOOTSTRAP_SERVERS.name()), bootstrap);
      }
      env.put(ConfigModel.envName(TopologyConfigModel.GENERATION.name()), generation.name());
      return TopologyConfig.of(TopologyConfigModel.MODEL.load(config, env));
    }

    Duration timeout() {
      return Duration.ofMillis(timeoutMs);
    }

    /** Settings for a client of {@code kind}: {@code kafka.*} keys it knows, security included. */
    static Map<String, Object> client(TopologyConfig config, java.util.Set<String> known) {
      Map<String, Object> client = new HashMap<>();
      config
          .kafkaCommon()
          .forEach(
              (key, value) -> {
                if (known.contains(key)) {
                  client.put(key, value);
                }
              });
      client.put(AdminClientConfig.CLIENT_ID_CONFIG, "turnstile-generation");
      return client;
    }

    static Admin admin(TopologyConfig config) {
      return Admin.create(client(config, AdminClientConfig.configNames()));
    }

    static Map<String, Object> consumer(TopologyConfig config) {
      return client(config, ConsumerConfig.configNames());
    }
  }

  static Generation generation(CommandLine.Model.CommandSpec spec, String name) {
    try {
      return Generation.named(name);
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
    }
  }

  @Command(
      name = "status",
      mixinStandardHelpOptions = true,
      description = {
        "Where a generation stands: per partition it reads, the committed offset, the end and the"
            + " lag; whether it has caught up; offsets written to its outputs; whether it runs.",
        "Exit code 0 when it has caught up, 4 when it has not."
      })
  static final class Status implements Callable<Integer> {

    /** Exit code of {@code status} for a generation that has not caught up yet. */
    static final int BEHIND = 4;

    @CommandLine.ParentCommand GenerationCommand parent;
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;
    @Mixin Cluster cluster;

    @Parameters(
        index = "0",
        paramLabel = "NAME",
        description = "the generation ('default': the one without a name)")
    String name;

    @Override
    public Integer call() throws Exception {
      TopologyConfig config = cluster.config(generation(spec, name), parent.environment);
      try (Admin admin = Cluster.admin(config)) {
        GenerationStatus status = GenerationStatus.read(admin, config, cluster.timeout());
        status.print(spec.commandLine().getOut());
        return status.caughtUp() ? ExitCode.OK : BEHIND;
      }
    }
  }

  @Command(
      name = "diff",
      mixinStandardHelpOptions = true,
      description = {
        "Compares two generations' output topics, read_committed: per topic the records equal,"
            + " differing (with the JSON pointer of each differing field) and only in one."
            + " What identifies a record and which fields are not compared: docs/changing-a-rule.md.",
        "Compare generations that have caught up (see status): it warns otherwise."
      })
  static final class Diff implements Callable<Integer> {
    @CommandLine.ParentCommand GenerationCommand parent;
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;
    @Mixin Cluster cluster;

    @Parameters(index = "0", paramLabel = "OLD", description = "the generation readers use now")
    String older;

    @Parameters(index = "1", paramLabel = "NEW", description = "the generation to compare with it")
    String newer;

    @Option(
        names = "--examples",
        paramLabel = "N",
        description = "differing and one-sided records shown per topic (default: ${DEFAULT-VALUE})")
    int examples = 5;

    @Option(
        names = "--json",
        paramLabel = "FILE",
        description = "also write the whole report, every identity, as JSON to FILE")
    Path json;

    @Override
    public Integer call() throws Exception {
      PrintWriter out = spec.commandLine().getOut();
      Generation old = generation(spec, older);
      Generation now = generation(spec, newer);
      if (old.equals(now)) {
        throw new CommandLine.ParameterException(spec.commandLine(), "OLD and NEW are the same");
      }
      TopologyConfig config = cluster.config(old, parent.environment);
      try (Admin admin = Cluster.admin(config)) {
        for (Generation g : List.of(old, now)) {
          GenerationStatus status =
              GenerationStatus.read(
                  admin, cluster.config(g, parent.environment), cluster.timeout());
          if (!status.caughtUp()) {
            out.printf(
                "WARNING: generation %s has not caught up (%,d offsets to read): records it has"
                    + " yet to write show as differences; compare again once status says CAUGHT"
                    + " UP%n",
                g, status.lag());
          }
        }
      }
      GenerationDiff.Report report =
          GenerationDiff.compare(
              Cluster.consumer(config), config.get(TOPIC_PREFIX), old, now, cluster.timeout());
      DiffReport.print(report, out, examples);
      if (json != null) {
        try {
          Files.writeString(
              json,
              Json.mapper()
                      .writerWithDefaultPrettyPrinter()
                      .writeValueAsString(DiffReport.json(report))
                  + "\n");
        } catch (IOException e) {
          throw new CommandLine.ParameterException(
              spec.commandLine(), "--json: cannot write " + json + ": " + e.getMessage());
        }
        out.println("The whole report: " + json);
      }
      return ExitCode.OK;
    }
  }

  @Command(
      name = "retire",
      mixinStandardHelpOptions = true,
      description = {
        "Deletes a generation: its output topics, its internal topics (changelogs, prefix"
            + " '<application id>-') and its consumer group, after a confirmation. Stop the"
            + " generation first; its readers must have moved to another one.",
        "The raw topics and other generations are never touched."
      })
  static final class Retire implements Callable<Integer> {
    @CommandLine.ParentCommand GenerationCommand parent;
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;
    @Mixin Cluster cluster;

    @Parameters(index = "0", paramLabel = "NAME", description = "the generation to delete")
    String name;

    @Option(
        names = "--confirm",
        paramLabel = "NAME",
        description =
            "confirm without a question (scripts): the generation's name again; without it the"
                + " command asks on the console")
    String confirm;

    @Override
    public Integer call() throws Exception {
      PrintWriter out = spec.commandLine().getOut();
      Generation generation = generation(spec, name);
      TopologyConfig config = cluster.config(generation, parent.environment);
      try (Admin admin = Cluster.admin(config)) {
        Retirement plan = Retirement.plan(admin, config, cluster.timeout());
        plan.print(out);
        if (plan.running()) {
          spec.commandLine()
              .getErr()
              .println(
                  "turnstile generation: "
                      + generation
                      + " is running ("
                      + plan.members()
                      + " members): stop it first, then retire it");
          return ExitCode.CONFIG;
        }
        String answer = confirm;
        if (answer == null) {
          out.printf("Type the generation's name (%s) to delete all of the above: ", generation);
          out.flush();
          answer = parent.console.readLine();
        }
        if (answer == null || !answer.strip().equals(generation.toString())) {
          spec.commandLine()
              .getErr()
              .println("turnstile generation: not confirmed; nothing deleted");
          return ExitCode.CONFIG;
        }
        plan.execute(admin, cluster.timeout());
        out.println("Retired generation " + generation + ".");
        return ExitCode.OK;
      }
    }
  }
}
