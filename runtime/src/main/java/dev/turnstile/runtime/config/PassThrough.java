package dev.turnstile.runtime.config;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.apache.kafka.common.config.ConfigDef;

/**
 * Keys under a prefix handed to a Kafka client unchanged, e.g. {@code kafka.producer.linger.ms}.
 * Each is checked against the client's own {@link ConfigDef}: an unknown one is refused with the
 * nearest known key, a bad value is refused as the client would refuse it, and its secrecy is the
 * client's ({@link ConfigDef.Type#PASSWORD}).
 *
 * @param prefix e.g. {@code kafka.producer.}
 * @param description what the keys configure, for documentation
 * @param resolve the definition of a key (without the prefix), or {@code null} when the client does
 *     not know it; a key of a nested client ({@code producer.acks} under Kafka Streams) resolves to
 *     that client's definition of {@code acks}
 * @param known every key {@code resolve} knows, for suggesting the nearest to an unknown one
 * @param fixed keys (without the prefix) the process sets itself because a guarantee depends on
 *     them, each with the reason it gives when one is set
 */
public record PassThrough(
    String prefix,
    String description,
    Function<String, ConfigDef.ConfigKey> resolve,
    Set<String> known,
    Map<String, String> fixed) {

  public PassThrough {
    known = Set.copyOf(known);
    fixed = Map.copyOf(fixed);
  }

  /** Resolves a key with the first of the definitions that knows it. */
  public static Function<String, ConfigDef.ConfigKey> anyOf(ConfigDef... definitions) {
    return key -> {
      for (ConfigDef definition : definitions) {
        ConfigDef.ConfigKey found = definition.configKeys().get(key);
        if (found != null) {
          return found;
        }
      }
      return null;
    };
  }

  /** Every name of the definitions, each under every one of the prefixes given. */
  public static Set<String> names(List<String> prefixes, ConfigDef... definitions) {
    Set<String> names = new java.util.TreeSet<>();
    for (String prefix : prefixes) {
      for (String name : names(definitions)) {
        names.add(prefix + name);
      }
    }
    return names;
  }

  /** Every name of the definitions. */
  public static Set<String> names(ConfigDef... definitions) {
    Set<String> names = new java.util.TreeSet<>();
    for (ConfigDef definition : definitions) {
      names.addAll(definition.names());
    }
    return names;
  }
}
