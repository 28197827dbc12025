package dev.turnstile.topology.config;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

/**
 * Raw configuration of one process: a properties file, then the environment, which wins. An
 * environment variable maps to a key by lower-casing it and turning {@code _} into {@code .} after
 * the {@code TURNSTILE_} prefix, with {@code __} standing for {@code -}: {@code
 * TURNSTILE_TOPIC_PREFIX} sets {@code topic.prefix}, {@code TURNSTILE_TOPOLOGY_DEDUP_RETENTION__MS}
 * sets {@code topology.dedup.retention-ms}.
 */
public final class ConfigValues {

  static final String ENV_PREFIX = "TURNSTILE_";

  private final Map<String, String> file;
  private final Map<String, String> environment;

  private ConfigValues(Map<String, String> file, Map<String, String> environment) {
    this.file = file;
    this.environment = environment;
  }

  /** Values from {@code file} (may be null), overridden by {@code environment}. */
  public static ConfigValues load(Path file, Map<String, String> environment) {
    Map<String, String> values = new TreeMap<>();
    if (file != null) {
      Properties properties = new Properties();
      try (Reader reader = Files.newBufferedReader(file)) {
        properties.load(reader);
      } catch (IOException e) {
        throw new ConfigException("--config", "cannot read " + file + ": " + e.getMessage());
      }
      properties.stringPropertyNames().forEach(k -> values.put(k, properties.getProperty(k)));
    }
    Map<String, String> env = new TreeMap<>();
    environment.forEach(
        (name, value) -> {
          if (name.startsWith(ENV_PREFIX)) {
            env.put(name, value);
          }
        });
    return new ConfigValues(values, env);
  }

  /** Values given directly, as tests and the local stack do. */
  public static ConfigValues of(Map<String, String> values) {
    return new ConfigValues(new TreeMap<>(values), Map.of());
  }

  /** The environment variable that sets {@code key}. */
  static String environmentName(String key) {
    return ENV_PREFIX + key.toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_');
  }

  private String get(String key) {
    String fromEnvironment = environment.get(environmentName(key));
    return fromEnvironment != null ? fromEnvironment : file.get(key);
  }

  public String required(String key) {
    String value = get(key);
    if (value == null || value.isBlank()) {
      throw new ConfigException(key, "is required");
    }
    return value.trim();
  }

  public String string(String key, String defaultValue) {
    String value = get(key);
    return value == null ? defaultValue : value.trim();
  }

  public int integer(String key, int defaultValue, int min) {
    String value = get(key);
    if (value == null) {
      return defaultValue;
    }
    try {
      int parsed = Integer.parseInt(value.trim());
      if (parsed < min) {
        throw new ConfigException(key, "must be >= " + min + ", was " + parsed);
      }
      return parsed;
    } catch (NumberFormatException e) {
      throw new ConfigException(key, "must be an integer, was '" + value + "'");
    }
  }

  /** {@code true} or {@code false}, any case. */
  public boolean bool(String key, boolean defaultValue) {
    String value = get(key);
    if (value == null) {
      return defaultValue;
    }
    return switch (value.trim().toLowerCase(Locale.ROOT)) {
      case "true" -> true;
      case "false" -> false;
      default -> throw new ConfigException(key, "must be true or false, was '" + value + "'");
    };
  }

  /** A duration given in milliseconds. */
  public Duration millis(String key, Duration defaultValue, long minMillis) {
    String value = get(key);
    if (value == null) {
      return defaultValue;
    }
    try {
      long parsed = Long.parseLong(value.trim());
      if (parsed < minMillis) {
        throw new ConfigException(key, "must be >= " + minMillis + " ms, was " + parsed);
      }
      return Duration.ofMillis(parsed);
    } catch (NumberFormatException e) {
      throw new ConfigException(key, "must be a number of milliseconds, was '" + value + "'");
    }
  }

  /** Every key under {@code prefix}, with the prefix removed: pass-through client configs. */
  public Map<String, String> withPrefix(String prefix) {
    Map<String, String> out = new TreeMap<>();
    file.forEach(
        (k, v) -> {
          if (k.startsWith(prefix)) {
            out.put(k.substring(prefix.length()), v);
          }
        });
    String envPrefix = environmentName(prefix);
    environment.forEach(
        (name, v) -> {
          if (name.startsWith(envPrefix)) {
            out.put(
                name.substring(envPrefix.length()).toLowerCase(Locale.ROOT).replace('_', '.'), v);
          }
        });
    return out;
  }
}
