package dev.turnstile.runtime.config;

import java.util.List;

/**
 * Configuration that cannot be used: every problem found, each naming its key. Both processes print
 * it the same way and exit with code 2 ({@link dev.turnstile.runtime.cli.ExitCode#CONFIG}).
 */
public final class InvalidConfigurationException extends IllegalArgumentException {

  private final List<String> problems;

  /**
   * @param problems one line each, {@code <key>: <what is wrong>}
   */
  public InvalidConfigurationException(List<String> problems) {
    super(String.join("; ", problems));
    this.problems = List.copyOf(problems);
  }

  /** A single problem with {@code key}. */
  public static InvalidConfigurationException of(String key, String problem) {
    return new InvalidConfigurationException(List.of(key + ": " + problem));
  }

  /** A single problem with {@code key}. */
  public static InvalidConfigurationException of(Setting<?> key, String problem) {
    return of(key.name(), problem);
  }

  public List<String> problems() {
    return problems;
  }
}
