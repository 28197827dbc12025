package dev.turnstile.runtime.config;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.commons.text.similarity.LevenshteinDistance;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;

/**
 * One process's configuration: every key declared once as a {@link Setting} (name, type, default,
 * validator, documentation; {@link ConfigDef.Type#PASSWORD} for secrets) in its {@link Keys},
 * families of per-instance keys ({@link Template}), prefixes handed to Kafka clients ({@link
 * PassThrough}), and the {@link Rule}s between keys.
 *
 * <p>Sources: properties files, then environment variables, which win. {@code TURNSTILE_<KEY>} sets
 * a key: upper case, {@code .} and {@code -} written {@code _} ({@code TURNSTILE_TOPIC_PREFIX} sets
 * {@code topic.prefix}); under a pass-through prefix the rest is lower-cased with {@code _} as
 * {@code .} ({@code TURNSTILE_KAFKA_SASL_JAAS_CONFIG} sets {@code kafka.sasl.jaas.config}).
 *
 * <p>Every key is checked at start-up and every problem is reported at once, each naming its key:
 * an unknown key (with the nearest known one), a value of the wrong type or out of range, a missing
 * required key, a pass-through key the process fixes itself, and each rule between keys broken (a
 * rule is left out while a key it reads has a problem of its own). Secrets and the user info of
 * URLs are never echoed.
 */
public final class ConfigModel {

  /**
   * A rule between keys: reads checked values through {@code settings} and adds one line per
   * problem, {@code <key>: <what is wrong>}.
   */
  @FunctionalInterface
  public interface Rule {
    void check(Settings settings, List<String> problems);
  }

  /** Prefix of the environment variables that set keys. */
  public static final String ENV_PREFIX = "TURNSTILE_";

  /** Variables with the prefix that belong to the launch scripts, not to the configuration. */
  static final Set<String> RESERVED_ENV = Set.of("TURNSTILE_JAVA_OPTS", "TURNSTILE_COMMAND");

  private static final LevenshteinDistance DISTANCE = LevenshteinDistance.getDefaultInstance();

  private final String program;
  private final ConfigDef keys;
  private final List<Template> templates;
  private final List<PassThrough> passThroughs;
  private final List<Rule> rules;

  /**
   * @param program the command's name, for messages ({@code turnstile-bridge})
   * @param keys every key, declared
   * @param passThroughs client prefixes; a key matches the longest prefix it starts with
   * @param rules between keys, checked once every key is
   */
  public ConfigModel(String program, Keys keys, List<PassThrough> passThroughs, List<Rule> rules) {
    this.program = program;
    this.keys = keys.definitions();
    this.templates = keys.templates();
    List<PassThrough> sorted = new ArrayList<>(passThroughs);
    sorted.sort(Comparator.comparingInt((PassThrough p) -> p.prefix().length()).reversed());
    this.passThroughs = List.copyOf(sorted);
    this.rules = List.copyOf(rules);
  }

  public String program() {
    return program;
  }

  /** Every key's definition, as the documentation is generated from. */
  public ConfigDef keys() {
    return keys;
  }

  public List<Template> templates() {
    return templates;
  }

  public List<PassThrough> passThroughs() {
    return passThroughs;
  }

  /** Reads the file (may be {@code null}) and the environment, then {@link #parse}s. */
  public Settings load(Path file, Map<String, String> environment) {
    return load(file == null ? List.of() : List.of(file), environment);
  }

  /**
   * Reads the files in order (a later one wins, e.g. {@code bridge.properties} then {@code
   * kafka-sasl-ssl.properties}), then the environment, which wins over all; then {@link #parse}s.
   */
  public Settings load(List<Path> files, Map<String, String> environment) {
    Map<String, String> values = new HashMap<>();
    List<String> problems = new ArrayList<>();
    for (Path file : files) {
      values.putAll(readProperties(file));
    }
    Map<String, String> fromEnvironment = new TreeMap<>();
    environment.forEach(
        (name, value) -> {
          if (!name.startsWith(ENV_PREFIX) || RESERVED_ENV.contains(name)) {
            return;
          }
          String key = keyOf(name);
          if (key == null) {
            Set<String> known = new TreeSet<>();
            allKeys().forEach(k -> known.add(envName(k)));
            problems.add(name + ": sets no known key" + didYouMean(name, known, ""));
          } else {
            fromEnvironment.put(key, value);
          }
        });
    values.putAll(fromEnvironment);
    return parse(values, problems);
  }

  /** Checks and types flat keys as a properties file holds them. */
  public Settings parse(Map<String, String> values) {
    return parse(values, new ArrayList<>());
  }

  private Settings parse(Map<String, String> raw, List<String> problems) {
    Map<String, Object> parsed = new TreeMap<>();
    for (ConfigDef.ConfigKey key : keys.configKeys().values()) {
      Object value = value(key, key.name, raw.get(key.name), problems);
      if (value != FAILED) {
        parsed.put(key.name, value);
      }
    }
    // Each listed instance's keys, given or defaulted; any other key is refused below.
    Map<String, Map<String, Map<String, Object>>> instances = new LinkedHashMap<>();
    Map<Template, Set<String>> listed = new LinkedHashMap<>();
    for (Template template : templates) {
      Map<String, Map<String, Object>> byName = new TreeMap<>();
      listed.put(template, names(template, (String) parsed.get(template.listKey()), problems));
      for (String instance : listed.get(template)) {
        Map<String, Object> values = byName.computeIfAbsent(instance, n -> new TreeMap<>());
        for (ConfigDef.ConfigKey key : template.keys().configKeys().values()) {
          String full = template.prefix() + instance + "." + key.name;
          Object value = value(key, full, raw.get(full), problems);
          if (value != FAILED) {
            values.put(key.name, value);
          }
        }
      }
      instances.put(template.prefix(), byName);
    }
    Map<String, Map<String, String>> passed = new LinkedHashMap<>();
    passThroughs.forEach(p -> passed.put(p.prefix(), new TreeMap<>()));
    for (String name : new TreeSet<>(raw.keySet())) {
      String value = raw.get(name);
      PassThrough passThrough = passThroughOf(name);
      if (passThrough != null) {
        passed.get(passThrough.prefix()).put(name.substring(passThrough.prefix().length()), value);
      }
      if (keys.configKeys().containsKey(name)) {
        continue;
      }
      Template template = templateOf(name);
      if (template != null) {
        checkInstanceKey(template, listed.get(template), name, problems);
      } else if (passThrough != null) {
        checkPassThrough(passThrough, name, value, problems);
      } else {
        problems.add(name + ": unknown key" + didYouMean(name, allKeys(), ""));
      }
    }
    Settings settings = new Settings(this, parsed, raw.keySet(), instances, passed);
    for (Rule rule : rules) {
      try {
        rule.check(settings, problems);
      } catch (Settings.Unavailable e) {
        // A key the rule reads has a problem of its own, reported above.
      }
    }
    if (!problems.isEmpty()) {
      throw new InvalidConfigurationException(
          problems.stream().map(ConfigModel::withoutUserInfo).sorted().toList());
    }
    return settings;
  }

  /** What {@link #value} gives for a key with a problem, which it adds to {@code problems}. */
  private static final Object FAILED = new Object();

  /** The typed value of {@code text}, the default when unset, or {@link #FAILED}. */
  private static Object value(
      ConfigDef.ConfigKey key, String fullName, String text, List<String> problems) {
    boolean unset =
        text == null
            || (text.isBlank()
                && key.type != ConfigDef.Type.STRING
                && key.type != ConfigDef.Type.PASSWORD);
    if (unset) {
      if (key.defaultValue == ConfigDef.NO_DEFAULT_VALUE) {
        problems.add(fullName + ": is required");
        return FAILED;
      }
      return key.defaultValue;
    }
    return parsed(key, fullName, text, problems);
  }

  /** {@code text} typed and checked by {@code key}'s definition, or {@link #FAILED}. */
  private static Object parsed(
      ConfigDef.ConfigKey key, String fullName, String text, List<String> problems) {
    try {
      Object parsed = ConfigDef.parseType(fullName, text.trim(), key.type);
      if (key.validator != null) {
        key.validator.ensureValid(fullName, parsed);
      }
      return parsed;
    } catch (ConfigException e) {
      problems.add(fullName + ": " + invalid(key, text, e));
      return FAILED;
    }
  }

  private static String invalid(ConfigDef.ConfigKey key, String text, ConfigException e) {
    String message = e.getMessage() == null ? "" : e.getMessage();
    int detail = message.indexOf(": ");
    String why =
        message.startsWith("Invalid value") && detail > 0 ? message.substring(detail + 2) : message;
    String shown = key.type == ConfigDef.Type.PASSWORD ? "(hidden)" : "'" + text.trim() + "'";
    return "invalid value " + shown + ": " + why;
  }

  /** The whole problem, as validators and rules may quote values in their reasons too. */
  private static String withoutUserInfo(String problem) {
    return URL_USER_INFO.matcher(problem).replaceAll("$1(hidden)@");
  }

  /** The user info of a URL ({@code scheme://user:password@host}), never echoed in a problem. */
  private static final java.util.regex.Pattern URL_USER_INFO =
      java.util.regex.Pattern.compile("([A-Za-z][A-Za-z0-9+.-]*://)[^/?#@\\s]*@");

  private Set<String> names(Template template, String list, List<String> problems) {
    Set<String> names = new LinkedHashSet<>();
    if (list == null || list.isBlank()) {
      return names;
    }
    for (String raw : list.split(",")) {
      String name = raw.trim();
      if (!template.namePattern().matcher(name).matches() || !names.add(name)) {
        problems.add(
            template.listKey()
                + ": must list distinct names of "
                + template.namePattern()
                + ", comma-separated, got '"
                + list
                + "'");
        return Set.of();
      }
    }
    return names;
  }

  /** A key under a template's prefix that is no key of a listed instance. */
  private void checkInstanceKey(
      Template template, Set<String> listed, String name, List<String> problems) {
    String rest = name.substring(template.prefix().length());
    int dot = rest.indexOf('.');
    String instance = dot < 0 ? rest : rest.substring(0, dot);
    if (!template.keys().names().contains(dot < 0 ? "" : rest.substring(dot + 1))) {
      Set<String> candidates = new TreeSet<>();
      template.keys().names().forEach(k -> candidates.add(template.prefix() + instance + "." + k));
      problems.add(name + ": unknown key" + didYouMean(name, candidates, ""));
    } else if (!listed.contains(instance)) {
      problems.add(
          name + ": '" + instance + "' is not listed in " + template.listKey() + " " + listed);
    }
  }

  private void checkPassThrough(
      PassThrough passThrough, String name, String value, List<String> problems) {
    String clientKey = name.substring(passThrough.prefix().length());
    String reason = passThrough.fixed().get(clientKey);
    if (reason != null) {
      problems.add(name + ": cannot be set: " + reason);
      return;
    }
    ConfigDef.ConfigKey key = passThrough.resolve(clientKey);
    if (key != null) {
      parsed(key, name, value, problems);
      return;
    }
    // The nearest key the client knows or the model declares under the prefix.
    Set<String> known = passThrough.known();
    keys.names().stream()
        .filter(k -> k.startsWith(passThrough.prefix()))
        .forEach(k -> known.add(k.substring(passThrough.prefix().length())));
    problems.add(
        name
            + ": not a setting of "
            + passThrough.description()
            + didYouMean(clientKey, known, passThrough.prefix()));
  }

  /** {@code "; did you mean <prefix><nearest>?"}, or {@code ""} when no candidate is near. */
  private static String didYouMean(String name, Set<String> candidates, String prefix) {
    String best = nearest(name, candidates);
    return best == null ? "" : "; did you mean " + prefix + best + "?";
  }

  /** The closest candidate by edit distance, if it is close enough to be a plausible typo. */
  static String nearest(String name, Set<String> candidates) {
    int limit = Math.max(3, name.length() / 4);
    String best = null;
    int bestDistance = Integer.MAX_VALUE;
    for (String candidate : candidates) {
      int distance = DISTANCE.apply(name, candidate);
      if (distance < bestDistance) {
        best = candidate;
        bestDistance = distance;
      }
    }
    return bestDistance <= limit ? best : null;
  }

  private Set<String> allKeys() {
    Set<String> all = new TreeSet<>(keys.names());
    for (Template template : templates) {
      template.keys().names().forEach(k -> all.add(template.prefix() + "<name>." + k));
    }
    return all;
  }

  private Template templateOf(String name) {
    for (Template template : templates) {
      if (name.startsWith(template.prefix())) {
        return template;
      }
    }
    return null;
  }

  private PassThrough passThroughOf(String name) {
    for (PassThrough passThrough : passThroughs) {
      if (name.startsWith(passThrough.prefix())) {
        return passThrough;
      }
    }
    return null;
  }

  /** The environment variable that sets {@code key}: upper case, {@code .} and {@code -} as _. */
  public static String envName(String key) {
    return ENV_PREFIX + key.toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_');
  }

  /**
   * The key an environment variable sets, or {@code null} if it sets none this model knows. The
   * mapping is not reversible, so the variable is matched against the declared keys first, then the
   * templates' (instance names have no {@code _}), then the pass-through prefixes, under which the
   * rest is lower-cased with {@code _} as {@code .} (Kafka's keys have neither - nor _).
   */
  public String keyOf(String variable) {
    for (String key : keys.names()) {
      if (envName(key).equals(variable)) {
        return key;
      }
    }
    for (Template template : templates) {
      String rest = after(envName(template.prefix()), variable);
      int split = rest == null ? -1 : rest.indexOf('_');
      for (String key : split > 0 ? template.keys().names() : Set.<String>of()) {
        if (envName(key).equals(ENV_PREFIX + rest.substring(split + 1))) {
          String instance = rest.substring(0, split).toLowerCase(Locale.ROOT);
          return template.prefix() + instance + "." + key;
        }
      }
    }
    for (PassThrough passThrough : passThroughs) {
      String rest = after(envName(passThrough.prefix()), variable);
      if (rest != null && !rest.isEmpty()) {
        return passThrough.prefix() + rest.toLowerCase(Locale.ROOT).replace('_', '.');
      }
    }
    return null;
  }

  private static String after(String prefix, String variable) {
    return variable.startsWith(prefix) ? variable.substring(prefix.length()) : null;
  }

  /**
   * Whether a key's value is secret: its definition, ours or the Kafka client's, has type {@link
   * ConfigDef.Type#PASSWORD}. The one rule for masking, everywhere.
   */
  public boolean isSecret(String name) {
    ConfigDef.ConfigKey key = keys.configKeys().get(name);
    if (key == null) {
      Template template = templateOf(name);
      if (template != null) {
        key = template.keys().configKeys().get(name.substring(name.lastIndexOf('.') + 1));
      } else {
        PassThrough passThrough = passThroughOf(name);
        if (passThrough != null) {
          key = passThrough.resolve(name.substring(passThrough.prefix().length()));
        }
      }
    }
    return key != null && key.type == ConfigDef.Type.PASSWORD;
  }

  /**
   * The keys {@code file} sets to the value this model declares as their default, sorted: in an
   * example file such a line is a second copy of the default, which goes stale when the default
   * changes. A blank value of a key that is not a string counts (it reads as the default); an
   * invalid value does not (loading the file reports it); templated keys are not checked (their
   * defaults are per template).
   */
  public List<String> keysSetToTheirDefault(Path file) {
    List<String> restated = new ArrayList<>();
    readProperties(file)
        .forEach(
            (name, value) -> {
              ConfigDef.ConfigKey key = keys.configKeys().get(name);
              if (key == null || !key.hasDefault()) {
                return;
              }
              List<String> problems = new ArrayList<>();
              Object read = value(key, name, value, problems);
              if (problems.isEmpty()
                  && read != FAILED
                  && java.util.Objects.equals(read, key.defaultValue)) {
                restated.add(name);
              }
            });
    restated.sort(null);
    return restated;
  }

  private static Map<String, String> readProperties(Path file) {
    Properties properties = new Properties();
    try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      properties.load(reader);
    } catch (IOException e) {
      throw new InvalidConfigurationException(
          List.of("--config: cannot read " + file + ": " + e.getMessage()));
    }
    Map<String, String> values = new HashMap<>();
    properties.stringPropertyNames().forEach(k -> values.put(k, properties.getProperty(k)));
    return values;
  }
}
