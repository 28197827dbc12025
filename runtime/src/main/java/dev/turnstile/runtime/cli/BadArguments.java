package dev.turnstile.runtime.cli;

import picocli.CommandLine;

/** How every Turnstile tool answers arguments it cannot read. */
public final class BadArguments {

  private BadArguments() {}

  /**
   * Makes {@code line} print {@code "<program>: <problem>"} and its usage to its error writer and
   * exit with {@link ExitCode#CONFIG} when its arguments cannot be parsed.
   */
  public static CommandLine refuseWithUsage(CommandLine line, String program) {
    return line.setParameterExceptionHandler(
        (e, arguments) -> {
          e.getCommandLine().getErr().println(program + ": " + e.getMessage());
          e.getCommandLine().usage(e.getCommandLine().getErr());
          return ExitCode.CONFIG;
        });
  }
}
