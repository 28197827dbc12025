package dev.turnstile.runtime.cli;

/** The exit codes of every Turnstile command, so that a supervisor can tell the cases apart. */
public final class ExitCode {

  /**
   * Done ({@code --help}, {@code --check-config}, {@code turnstile topics}); a process stopped by
   * SIGTERM ends with the JVM's 143 after draining.
   */
  public static final int OK = 0;

  /** A failure while running: Kafka Streams failed, Kafka refused a request. */
  public static final int FAILURE = 1;

  /** Bad command line or configuration: fix the input, a restart will not help. */
  public static final int CONFIG = 2;

  /**
   * The topics are missing or differ from the catalogue: create them ({@code turnstile topics}),
   * then start again.
   */
  public static final int TOPICS = 3;

  private ExitCode() {}
}
