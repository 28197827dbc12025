package dev.turnstile.runtime.config;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.apache.kafka.common.config.types.Password;

/**
 * Checked, typed configuration of one process, as {@link ConfigModel} parsed it. Getters take the
 * declared key; a key's value has the type its definition declares.
 */
public final class Settings {

  private static final String HIDDEN = "[hidden]";

  private final ConfigModel model;
  private final Map<String, Object> values;
  private final Set<String> explicit;
  private final Map<String, Map<String, Map<String, Object>>> instances;
  private final Map<String, Map<String, String>> passThrough;

  Settings(
      ConfigModel model,
      Map<String, Object> values,
      Set<String> explicit,
      Map<String, Map<String, Map<String, Object>>> instances,
      Map<String, Map<String, String>> passThrough) {
    this.model = model;
    this.values = values;
    this.explicit = explicit;
    this.instances = instances;
    this.passThrough = passThrough;
  }

  public ConfigModel model() {
    return model;
  }

  /** Whether the key was given (file or environment) rather than defaulted. */
  public boolean isSet(String key) {
    return explicit.contains(key);
  }

  /** The value, or {@code null} for a key that is unset and has no default. */
  public Object get(String key) {
    if (!model.keys().configKeys().containsKey(key)) {
      throw new IllegalArgumentException("not a declared key: " + key);
    }
    return values.get(key);
  }

  public String string(String key) {
    Object value = get(key);
    if (value instanceof Password password) {
      return password.value();
    }
    return value == null ? null : ((String) value).trim();
  }

  public int integer(String key) {
    return (Integer) get(key);
  }

  public long longValue(String key) {
    return (Long) get(key);
  }

  public double doubleValue(String key) {
    return (Double) get(key);
  }

  public boolean bool(String key) {
    return (Boolean) get(key);
  }

  /** A {@code *-ms} key as a duration. */
  public Duration millis(String key) {
    return Duration.ofMillis(longValue(key));
  }

  /**
   * The instances of a {@link Template}, by name in listed order: each key of the template with its
   * value or default.
   */
  public Map<String, Map<String, Object>> instances(String prefix) {
    return instances.getOrDefault(prefix, Map.of());
  }

  /** The keys under a pass-through prefix, without the prefix, values as given. */
  public Map<String, String> passThrough(String prefix) {
    return passThrough.getOrDefault(prefix, Map.of());
  }

  /** Every key given or defaulted, secrets hidden: what the process logs at start-up. */
  public Map<String, String> describe() {
    Map<String, String> shown = new TreeMap<>();
    values.forEach((key, value) -> shown.put(key, shown(key, value)));
    instances.forEach(
        (prefix, byName) ->
            byName.forEach(
                (name, keys) ->
                    keys.forEach(
                        (key, value) -> {
                          String full = prefix + name + "." + key;
                          shown.put(full, shown(full, value));
                        })));
    passThrough.forEach(
        (prefix, keys) ->
            keys.forEach((key, value) -> shown.put(prefix + key, shown(prefix + key, value))));
    return shown;
  }

  private String shown(String key, Object value) {
    if (value == null) {
      return "unset";
    }
    return model.isSecret(key) || value instanceof Password ? HIDDEN : String.valueOf(value);
  }

  @Override
  public String toString() {
    Map<String, String> shown = new LinkedHashMap<>(describe());
    return model.program()
        + " "
        + shown.entrySet().stream()
            .map(e -> e.getKey() + "=" + e.getValue())
            .collect(Collectors.joining(", ", "{", "}"));
  }
}
