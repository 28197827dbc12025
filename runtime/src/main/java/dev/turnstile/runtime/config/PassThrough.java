package dev.turnstile.runtime.config;

import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.common.config.ConfigDef;

/**
 * Keys under a prefix handed to a Kafka client unchanged, e.g. {@code kafka.producer.linger.ms}.
 * Each is checked against the client's own {@link ConfigDef}: an unknown one is refused with the
 * nearest known key, a bad value is refused as the client would refuse it, and its secrecy is the
 * client's ({@link ConfigDef.Type#PASSWORD}).
 *
 * @param prefix e.g. {@code kafka.producer.}
 * @param description what the keys configure, for documentation
 * @param clients the definitions that know the keys under each further prefix, the longest matching
 *     first: {@code ""} for the client's own keys, {@code "producer."} for a client nested in it
 *     (Kafka Streams' producers); an empty list takes any key as a string (Kafka Streams' {@code
 *     topic.} keys, which the broker checks)
 * @param fixed keys (without the prefix) the process sets itself because a guarantee depends on
 *     them, each with the reason it gives when one is set
 */
public record PassThrough(
    String prefix,
    String description,
    Map<String, List<ConfigDef>> clients,
    Map<String, String> fixed) {

  private static final ConfigDef.ConfigKey ANY =
      new ConfigDef()
          .define("any", ConfigDef.Type.STRING, null, ConfigDef.Importance.LOW, "")
          .configKeys()
          .get("any");

  public PassThrough {
    clients = Map.copyOf(clients);
    fixed = Map.copyOf(fixed);
  }

  /** The definition of a key (without {@link #prefix}), or {@code null} when no client knows it. */
  public ConfigDef.ConfigKey resolve(String key) {
    String nested =
        clients.keySet().stream()
            .filter(key::startsWith)
            .max(Comparator.comparingInt(String::length))
            .orElse(null);
    if (nested == null || clients.get(nested).isEmpty()) {
      return nested == null ? null : ANY;
    }
    return clients.get(nested).stream()
        .map(definition -> definition.configKeys().get(key.substring(nested.length())))
        .filter(found -> found != null)
        .findFirst()
        .orElse(null);
  }

  /** Every key {@link #resolve} knows, for suggesting the nearest to an unknown one. */
  public Set<String> known() {
    Set<String> known = new TreeSet<>();
    clients.forEach(
        (nested, definitions) ->
            definitions.forEach(
                definition -> definition.names().forEach(name -> known.add(nested + name))));
    return known;
  }
}
