package dev.turnstile.topology.config;

/** A configuration value that is missing or invalid; the message names the key. */
public final class ConfigException extends IllegalArgumentException {

  private final String key;

  public ConfigException(String key, String problem) {
    super("configuration " + key + " " + problem);
    this.key = key;
  }

  public String key() {
    return key;
  }
}
