package dev.turnstile.runtime.cli;

import dev.turnstile.runtime.config.ConfigModel;
import dev.turnstile.runtime.config.InvalidConfigurationException;
import dev.turnstile.runtime.config.Settings;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The command line both processes share: {@code [--config FILE]... [--check-config] [-h]}. Reads
 * the configuration through the process's {@link ConfigModel} and reports every problem the same
 * way: one line per key on stderr, exit code {@link ExitCode#CONFIG}, no stack trace.
 *
 * @param <T> the process's typed configuration
 */
public final class ProcessCommandLine<T> {

  /** What {@link #parse} decided: run with the configuration, or end with the exit code. */
  public record Outcome<T>(T config, int exitCode) {

    public boolean run() {
      return config != null;
    }
  }

  @Command(usageHelpAutoWidth = true, sortOptions = false)
  static final class Options {
    @Option(
        names = "--config",
        paramLabel = "FILE",
        description =
            "properties file; repeat to layer files (a later one wins); TURNSTILE_<KEY>"
                + " environment variables override them all")
    List<Path> config = new ArrayList<>();

    @Option(
        names = "--check-config",
        description = "check the configuration, print it with secrets hidden, and exit")
    boolean checkConfig;

    @Option(
        names = {"-h", "--help"},
        usageHelp = true,
        description = "print this help and exit")
    boolean help;
  }

  private final ConfigModel model;
  private final String description;
  private final Function<Settings, T> typed;

  /**
   * @param description what the process does, for {@code --help}
   * @param typed builds the typed configuration; may throw {@link InvalidConfigurationException}
   *     for rules between keys
   */
  public ProcessCommandLine(ConfigModel model, String description, Function<Settings, T> typed) {
    this.model = model;
    this.description = description;
    this.typed = typed;
  }

  /**
   * Prints a configuration problem the one way both processes do (a header line, then one line per
   * key, no stack trace) and returns {@link ExitCode#CONFIG}. Also for problems found after
   * parsing, when a process reads the files its configuration names.
   */
  public static int configurationError(
      String program, InvalidConfigurationException e, PrintWriter err) {
    err.println(program + ": configuration error");
    e.problems().forEach(problem -> err.println("  " + problem));
    err.flush();
    return ExitCode.CONFIG;
  }

  /** Parses arguments and configuration; prints help or problems to the writers. */
  public Outcome<T> parse(
      String[] args, Map<String, String> environment, PrintWriter out, PrintWriter err) {
    Options options = new Options();
    CommandLine line = new CommandLine(options);
    line.getCommandSpec().name(model.program());
    line.getCommandSpec().usageMessage().description(description);
    line.getCommandSpec()
        .usageMessage()
        .footer(
            "",
            "Configuration keys, their defaults and valid values: docs/configuration.md.",
            "Exit codes: 143 stopped by SIGTERM (after draining), 1 failed while running, 2 bad command line or"
                + " configuration, 3 topics missing or not as the catalogue declares.");
    try {
      line.parseArgs(args);
    } catch (CommandLine.ParameterException e) {
      err.println(model.program() + ": " + e.getMessage());
      err.println("Try '" + model.program() + " --help'.");
      err.flush();
      return new Outcome<>(null, ExitCode.CONFIG);
    }
    if (options.help) {
      line.usage(out);
      out.flush();
      return new Outcome<>(null, ExitCode.OK);
    }
    T config;
    Settings settings;
    try {
      settings = model.load(options.config, environment);
      config = typed.apply(settings);
    } catch (InvalidConfigurationException e) {
      return new Outcome<>(null, configurationError(model.program(), e, err));
    }
    if (options.checkConfig) {
      settings.describe().forEach((key, value) -> out.println(key + "=" + value));
      out.flush();
      return new Outcome<>(null, ExitCode.OK);
    }
    return new Outcome<>(config, ExitCode.OK);
  }
}
