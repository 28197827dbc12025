package dev.turnstile.runtime.config;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.types.Password;

/**
 * The configuration tables of {@code docs/configuration.md}, generated from a {@link ConfigModel}:
 * one table per group of keys, one per {@link Template}, one for the pass-through prefixes. A test
 * in each process compares them with that page's {@link GeneratedBlock} and rewrites them on
 * request.
 */
public final class ConfigDocs {

  private ConfigDocs() {}

  /** Markdown lines: for each group a {@code **group**} line and its table, blank-separated. */
  public static List<String> markdown(ConfigModel model) {
    List<String> lines = new ArrayList<>();
    Map<String, List<ConfigDef.ConfigKey>> groups = new LinkedHashMap<>();
    for (ConfigDef.ConfigKey key : model.keys().configKeys().values()) {
      groups.computeIfAbsent(key.group == null ? "" : key.group, g -> new ArrayList<>()).add(key);
    }
    groups.forEach((group, keys) -> table(lines, group, "", keys));
    for (Template template : model.templates()) {
      table(
          lines,
          "Per `<name>` listed in `" + template.listKey() + "`",
          template.prefix() + "<name>.",
          new ArrayList<>(template.keys().configKeys().values()));
    }
    lines.add("**Passed to the Kafka clients** (`TURNSTILE_KAFKA_...` in the environment)");
    lines.add("");
    lines.add(
        "| prefix | passed to | refused: set or fixed by Turnstile (the reason is in the error) |");
    lines.add("| --- | --- | --- |");
    for (PassThrough passThrough : model.passThroughs()) {
      List<String> fixed =
          new TreeSet<>(passThrough.fixed().keySet()).stream().map(k -> "`" + k + "`").toList();
      lines.add(
          row(
              "`" + passThrough.prefix() + "*`",
              passThrough.description(),
              String.join(", ", fixed)));
    }
    return lines;
  }

  private static void table(
      List<String> lines, String title, String prefix, List<ConfigDef.ConfigKey> keys) {
    if (!title.isEmpty()) {
      lines.add("**" + title + "**");
      lines.add("");
    }
    lines.add("| key | type | default | valid values | meaning |");
    lines.add("| --- | --- | --- | --- | --- |");
    for (ConfigDef.ConfigKey key : keys) {
      String meaning = key.documentation.replace("|", "\\|").replace("\n", " ");
      lines.add(
          row("`" + prefix + key.name + "`", type(key), defaultValue(key), valid(key), meaning));
    }
    lines.add("");
  }

  private static String row(String... cells) {
    return "| " + String.join(" | ", cells) + " |";
  }

  private static String type(ConfigDef.ConfigKey key) {
    return switch (key.type) {
      case PASSWORD -> "secret";
      case INT, SHORT, LONG -> key.name.endsWith("-ms") ? "ms" : "integer";
      case DOUBLE -> "decimal";
      default -> key.type.name().toLowerCase(java.util.Locale.ROOT);
    };
  }

  static String defaultValue(ConfigDef.ConfigKey key) {
    return cell(key, key.defaultValue);
  }

  /**
   * A value of {@code key} as the default column writes it: {@code required}, {@code unset}, a
   * string in backticks, milliseconds with their whole unit.
   */
  public static String cell(ConfigDef.ConfigKey key, Object value) {
    if (value == ConfigDef.NO_DEFAULT_VALUE) {
      return "required";
    }
    if (value == null || value instanceof Password) {
      return "unset";
    }
    if (value instanceof String text) {
      return text.isEmpty() ? "`\"\"`" : "`" + text + "`";
    }
    if (value instanceof Long millis && key.name.endsWith("-ms")) {
      String human = human(millis);
      return human == null ? millis.toString() : millis + " (" + human + ")";
    }
    return String.valueOf(value);
  }

  /** Reads generated tables back: each key's default column, by key as the table writes it. */
  public static Map<String, String> documentedDefaults(List<String> markdown) {
    Map<String, String> defaults = new LinkedHashMap<>();
    for (String line : markdown) {
      String[] cells = line.split(" \\| ");
      if (line.startsWith("| `") && cells.length >= 5) {
        defaults.put(cells[0].substring(3, cells[0].length() - 1), cells[2]);
      }
    }
    return defaults;
  }

  /** {@code 604800000} as {@code 7 d}, for whole days, hours, minutes or seconds. */
  static String human(long millis) {
    long[] units = {86_400_000L, 3_600_000L, 60_000L, 1_000L};
    String[] names = {"d", "h", "min", "s"};
    for (int i = 0; i < units.length; i++) {
      if (millis >= units[i] && millis % units[i] == 0) {
        return millis / units[i] + " " + names[i];
      }
    }
    return null;
  }

  static String valid(ConfigDef.ConfigKey key) {
    if (key.validator == null) {
      return key.type == ConfigDef.Type.BOOLEAN ? "`true`, `false`" : "";
    }
    String text = key.validator.toString();
    // Kafka writes ranges as [min,...,max] or [min,...].
    java.util.regex.Matcher range =
        java.util.regex.Pattern.compile("\\[(-?[0-9.E]+),\\.\\.\\.(?:,(-?[0-9.E]+))?\\]")
            .matcher(text);
    if (range.matches()) {
      return range.group(2) == null
          ? "≥ " + range.group(1)
          : range.group(1) + " .. " + range.group(2);
    }
    return text.replace("|", "\\|");
  }
}
