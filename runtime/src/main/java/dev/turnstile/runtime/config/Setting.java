package dev.turnstile.runtime.config;

import java.time.Duration;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Function;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.types.Password;

/**
 * One configuration key, declared once: name, type, default, valid values, documentation, and
 * whether it is secret ({@link Type#PASSWORD}, never shown). It is also the typed handle code reads
 * the key with, as Debezium's {@code Field}: {@code config.get(HTTP_PORT)} is an {@code Integer}, a
 * {@code *-ms} key a {@link Duration}. Started by a {@link Keys.Group}'s methods, narrowed with
 * {@link #atLeast}, {@link #between}, {@link #check} or {@link #as}, and ended by {@link #doc},
 * which adds it to the group, hence to the process's checks and generated documentation.
 *
 * @param <T> what code reads
 */
public final class Setting<T> {

  private final Keys.Group group;
  private final String name;
  private final Type type;
  private final Object defaultValue;
  private final Function<Object, T> typed;
  private ConfigDef.Validator validator;

  Setting(Keys.Group group, String name, Type type, Object defaultValue, Function<Object, T> t) {
    this.group = group;
    this.name = name;
    this.type = type;
    this.defaultValue = defaultValue;
    this.typed = t;
  }

  /** The key, e.g. {@code bridge.http.port}; for a {@link Template}'s key the part after it. */
  public String name() {
    return name;
  }

  /** The key: problems are written {@code KEY + ": ..."}. */
  @Override
  public String toString() {
    return name;
  }

  /**
   * A value as a Kafka client hands it on (a string, or already typed), checked and typed; {@code
   * null} gives the declared default.
   *
   * @throws ConfigException when it is not a valid value of this key
   */
  public T parse(Object value) {
    if (value == null) {
      return typed(defaultValue == ConfigDef.NO_DEFAULT_VALUE ? null : defaultValue);
    }
    Object parsed = ConfigDef.parseType(name, value, type);
    if (validator != null) {
      validator.ensureValid(name, parsed);
    }
    return typed(parsed);
  }

  T typed(Object parsed) {
    return typed.apply(parsed);
  }

  /** At least {@code min}. */
  public Setting<T> atLeast(Number min) {
    return valid(ConfigDef.Range.atLeast(min));
  }

  /** From {@code min} to {@code max}, both included. */
  public Setting<T> between(Number min, Number max) {
    return valid(ConfigDef.Range.between(min, max));
  }

  /** Not blank. */
  public Setting<T> nonEmpty() {
    return valid(new ConfigDef.NonEmptyString());
  }

  /** Values {@code validator} accepts; its {@code toString()} is the documented valid values. */
  public Setting<T> valid(ConfigDef.Validator validator) {
    this.validator = validator;
    return this;
  }

  /**
   * Values {@code check} accepts, described as {@code validValues} in the documentation; it throws
   * for any other, its message the reason. An optional key's blank value is not checked.
   */
  public Setting<T> check(String validValues, Consumer<String> check) {
    boolean blankIsUnset = defaultValue == null;
    return valid(
        new ConfigDef.Validator() {
          @Override
          public void ensureValid(String name, Object value) {
            String text = value instanceof Password p ? p.value() : (String) value;
            if (text == null || blankIsUnset && text.isBlank()) {
              return;
            }
            try {
              check.accept(text.strip());
            } catch (RuntimeException e) {
              throw new ConfigException(name, value, e.getMessage());
            }
          }

          @Override
          public String toString() {
            return validValues;
          }
        });
  }

  /** Code reads {@code convert} of the value; only checked values are converted. */
  public <R> Setting<R> as(Function<? super T, R> convert) {
    return new Setting<R>(group, name, type, defaultValue, typed.andThen(convert)).valid(validator);
  }

  /** Ends the declaration with the key's documentation, a sentence of the generated table. */
  public Setting<T> doc(String documentation) {
    group.define(name, type, defaultValue, validator, documentation);
    return this;
  }

  static Function<Object, String> text() {
    return value -> value == null ? null : ((String) value).trim();
  }

  /** Blank is unset: an empty environment variable clears a key. */
  static Function<Object, Optional<String>> optionalText() {
    return value -> {
      String text = value instanceof Password password ? password.value() : (String) value;
      return text == null || text.isBlank() ? Optional.empty() : Optional.of(text.strip());
    };
  }

  @SuppressWarnings("unchecked")
  static <T> Function<Object, T> cast() {
    return value -> (T) value;
  }

  static Function<Object, Duration> millis() {
    return value -> Duration.ofMillis((Long) value);
  }
}
