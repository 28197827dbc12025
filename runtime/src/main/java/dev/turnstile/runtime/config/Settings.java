package dev.turnstile.runtime.config;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.common.config.types.Password;

/**
 * Checked, typed configuration of one process, as {@link ConfigModel} parsed it: each key's value
 * or its declared default, read through its {@link Setting}.
 */
public final class Settings {

  /** What a secret's value is shown as, wherever configuration is shown. */
  public static final String HIDDEN = "[hidden]";

  /** A key read by a rule has a problem of its own; the rule is left out. */
  static final class Unavailable extends RuntimeException {
    Unavailable(String key) {
      super(key, null, false, false);
    }
  }

  /** The values of one instance of a {@link Template}, read through its keys' settings. */
  public record Instance(String name, Map<String, Object> values) {

    public <T> T get(Setting<T> key) {
      if (!values.containsKey(key.name())) {
        throw new Unavailable(key.name());
      }
      return key.typed(values.get(key.name()));
    }
  }

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
    this.explicit = Set.copyOf(explicit);
    this.instances = instances;
    this.passThrough = passThrough;
  }

  /** The key's value, or its default. */
  public <T> T get(Setting<T> key) {
    return key.typed(get(key.name()));
  }

  /** The value as its definition types it ({@code null}: unset, no default). */
  public Object get(String key) {
    if (!model.keys().configKeys().containsKey(key)) {
      throw new IllegalArgumentException("not a declared key: " + key);
    }
    if (!values.containsKey(key)) {
      throw new Unavailable(key);
    }
    return values.get(key);
  }

  /** Whether the key was given (file or environment) rather than defaulted. */
  public boolean isSet(String key) {
    return explicit.contains(key);
  }

  /** The instances of a template's group, by name in listed order. */
  public Map<String, Instance> instances(Keys.Group template) {
    Map<String, Instance> named = new LinkedHashMap<>();
    instances
        .getOrDefault(template.template().prefix(), Map.of())
        .forEach((name, keys) -> named.put(name, new Instance(name, keys)));
    return named;
  }

  /** The keys under a pass-through prefix, without the prefix, values as given. */
  public Map<String, String> passThrough(String prefix) {
    return Collections.unmodifiableMap(passThrough.getOrDefault(prefix, Map.of()));
  }

  /** Every key given or defaulted, secrets hidden: what the process logs at start-up. */
  public Map<String, String> describe() {
    Map<String, String> shown = new TreeMap<>();
    values.forEach((key, value) -> show(shown, key, value));
    instances.forEach(
        (prefix, byName) ->
            byName.forEach(
                (name, keys) ->
                    keys.forEach((key, value) -> show(shown, prefix + name + "." + key, value))));
    passThrough.forEach(
        (prefix, keys) -> keys.forEach((key, value) -> show(shown, prefix + key, value)));
    return shown;
  }

  private void show(Map<String, String> shown, String key, Object value) {
    if (value != null) {
      shown.put(key, model.isSecret(key) || value instanceof Password ? HIDDEN : value.toString());
    }
  }

  /** {@code <program> {key=value, ...}}, sorted by key, secrets hidden ({@link #describe}). */
  @Override
  public String toString() {
    return model.program() + " " + describe();
  }
}
