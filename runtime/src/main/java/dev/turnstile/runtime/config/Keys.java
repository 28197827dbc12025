package dev.turnstile.runtime.config;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Type;

/**
 * Every key of one process, in the order it is declared and documented: each {@link Group} is a
 * table of the generated documentation. A process declares its keys as constants, each in a group:
 *
 * <pre>{@code
 * private static final Keys KEYS = new Keys();
 * private static final Keys.Group HTTP = KEYS.group("HTTP");
 * public static final Setting<Integer> HTTP_PORT =
 *     HTTP.integer("bridge.http.port", 8080).between(0, 65_535).doc("HTTP port; 0 picks any");
 * public static final ConfigModel MODEL = new ConfigModel("turnstile-bridge", KEYS, ...);
 * }</pre>
 */
public final class Keys {

  private final ConfigDef definitions = new ConfigDef();
  private final List<Template> templates = new ArrayList<>();

  /** Keys documented together under {@code title}. */
  public Group group(String title) {
    return new Group(title, null);
  }

  /**
   * A family of keys repeated per named instance, {@code <prefix><name>.<key>}; the names are
   * listed, comma-separated, in {@code listKey}.
   */
  public Group template(String prefix, Pattern namePattern, Setting<?> listKey) {
    Template template = new Template(prefix, namePattern, listKey.name(), new ConfigDef());
    templates.add(template);
    return new Group(null, template);
  }

  ConfigDef definitions() {
    return definitions;
  }

  List<Template> templates() {
    return List.copyOf(templates);
  }

  /** Where keys are declared: a table of the documentation, or a {@link Template}'s keys. */
  public final class Group {
    private final String title;
    private final Template template;
    private int order;

    private Group(String title, Template template) {
      this.title = title;
      this.template = template;
    }

    Template template() {
      return template;
    }

    void define(String name, Type type, Object value, ConfigDef.Validator v, String doc) {
      (template == null ? definitions : template.keys())
          .define(
              name,
              type,
              value,
              v,
              ConfigDef.Importance.MEDIUM,
              doc,
              title,
              ++order,
              ConfigDef.Width.NONE,
              name);
    }

    /** A string; blank is a value. */
    public Setting<String> string(String name, String defaultValue) {
      return new Setting<>(this, name, Type.STRING, defaultValue, Setting.text());
    }

    /** A string without a default, not blank. */
    public Setting<String> required(String name) {
      return new Setting<>(this, name, Type.STRING, ConfigDef.NO_DEFAULT_VALUE, Setting.text())
          .nonEmpty();
    }

    /** A string without a default; blank is unset. */
    public Setting<Optional<String>> optional(String name) {
      return new Setting<>(this, name, Type.STRING, null, Setting.optionalText());
    }

    /** A secret string without a default, never shown; blank is unset. */
    public Setting<Optional<String>> secret(String name) {
      return new Setting<>(this, name, Type.PASSWORD, null, Setting.optionalText());
    }

    public Setting<Integer> integer(String name, int defaultValue) {
      return new Setting<>(this, name, Type.INT, defaultValue, Setting.cast());
    }

    public Setting<Long> longValue(String name, long defaultValue) {
      return new Setting<>(this, name, Type.LONG, defaultValue, Setting.cast());
    }

    public Setting<Double> decimal(String name, double defaultValue) {
      return new Setting<>(this, name, Type.DOUBLE, defaultValue, Setting.cast());
    }

    public Setting<Boolean> bool(String name, boolean defaultValue) {
      return new Setting<>(this, name, Type.BOOLEAN, defaultValue, Setting.cast());
    }

    /** Milliseconds, read as a {@link Duration}; the name ends in {@code -ms}. */
    public Setting<Duration> millis(String name, long defaultMillis) {
      return new Setting<>(this, name, Type.LONG, defaultMillis, Setting.millis());
    }
  }
}
