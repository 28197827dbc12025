package dev.turnstile.schemas;

import java.util.List;
import java.util.regex.Pattern;

/**
 * A generation of the topology: one run of it, with its own Kafka Streams application id (so its
 * own consumer group, state, changelogs and transactional ids) and its own output topics, reading
 * the same raw topics as every other generation from their earliest retained offset. Generations
 * run side by side; a rule is changed by starting a new generation, comparing its outputs with the
 * old one's and moving readers over (docs/changing-a-rule.md).
 *
 * <p>Naming, declared here once: a generation named {@code g2} writes each topic the topology
 * writes (the catalogue's {@code writtenBy = topology}) as {@code <prefix>g2.<topic>}, e.g. {@code
 * g2.device-sessions.v1}, and runs as application id {@code <application-id>.g2}. The topic keeps
 * its base name, so its contract ({@code <dataset>.<stage>.v<major>}: the major version is the
 * schema's, not the generation's) is visibly the same, and one prefixed ACL or listing covers a
 * generation's topics. The dot keeps a generation's internal topics ({@code
 * turnstile-topology.g2-...}) outside the original's ACL prefix ({@code turnstile-topology-}). The
 * raw topics, written by the bridge, are never renamed: the bridge is untouched by generations.
 *
 * <p>The {@link #DEFAULT} generation has no name: the catalogue's own names and the configured
 * application id, i.e. a deployment as it was before generations. Tools address it as {@value
 * #DEFAULT_NAME}.
 *
 * @param name empty for the default generation; else lower-case letters, digits and {@code -},
 *     starting with a letter, at most 32 characters
 */
public record Generation(String name) {

  /** How tools and documents address the generation without a name. */
  public static final String DEFAULT_NAME = "default";

  /** The generation without a name: the catalogue's topic names, the configured application id. */
  public static final Generation DEFAULT = new Generation("");

  private static final Pattern NAME = Pattern.compile("[a-z][a-z0-9-]{0,31}");

  public Generation {
    if (name == null) {
      throw new IllegalArgumentException("a generation name is required");
    }
    if (!name.isEmpty()) {
      check(name);
    }
  }

  /**
   * The generation a tool's argument names: {@value #DEFAULT_NAME} is the one without a name.
   *
   * @throws IllegalArgumentException for a name that {@link #check} refuses
   */
  public static Generation named(String name) {
    if (DEFAULT_NAME.equals(name)) {
      return DEFAULT;
    }
    check(name);
    return new Generation(name);
  }

  /**
   * Refuses what cannot name a generation.
   *
   * @throws IllegalArgumentException saying why
   */
  public static void check(String name) {
    if (DEFAULT_NAME.equals(name)) {
      throw new IllegalArgumentException(
          "'"
              + DEFAULT_NAME
              + "' is how tools address the generation without a name; leave it"
              + " empty for that one");
    }
    if (!NAME.matcher(name).matches()) {
      throw new IllegalArgumentException(
          "a generation name is lower-case letters, digits and '-', starting with a letter, at"
              + " most 32 characters: "
              + name);
    }
  }

  /** Whether this is the generation without a name. */
  public boolean isDefault() {
    return name.isEmpty();
  }

  /** Whether a generation writes {@code topic} under its own name (the topology writes it). */
  public static boolean isPerGeneration(Topic topic) {
    return "topology".equals(topic.writtenBy());
  }

  /** The topics a generation writes under its own name, in catalogue order. */
  public static List<Topic> outputs() {
    return TopicCatalogue.ALL.stream().filter(Generation::isPerGeneration).toList();
  }

  /** The topics every generation reads and none writes: the raw topics, in catalogue order. */
  public static List<Topic> rawInputs() {
    return TopicCatalogue.ALL.stream().filter(t -> !isPerGeneration(t)).toList();
  }

  /** {@code topic}'s full name for this generation under the deployment's {@code prefix}. */
  public String topicName(Topic topic, String prefix) {
    String deployment = prefix == null ? "" : prefix;
    return isDefault() || !isPerGeneration(topic)
        ? topic.name(deployment)
        : topic.name(deployment + name + ".");
  }

  /** The Kafka Streams application id of this generation, from the configured one. */
  public String applicationId(String configured) {
    return isDefault() ? configured : configured + "." + name;
  }

  /** Its name, or {@value #DEFAULT_NAME} for the generation without one. */
  @Override
  public String toString() {
    return isDefault() ? DEFAULT_NAME : name;
  }
}
