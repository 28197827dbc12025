package dev.turnstile.runtime.topics;

/**
 * One way a topic differs from its spec.
 *
 * @param topic full topic name
 * @param field {@code exists}, {@code partitions}, {@code replicas} or a topic config name
 * @param expected what the catalogue declares
 * @param actual what the cluster has ({@code missing} for a topic or config it lacks)
 */
public record TopicDrift(String topic, String field, String expected, String actual) {

  /** A topic that does not exist. */
  public static TopicDrift missing(String topic) {
    return new TopicDrift(topic, "exists", "yes", "missing");
  }

  public boolean isMissing() {
    return field.equals("exists");
  }

  @Override
  public String toString() {
    return isMissing()
        ? topic + ": missing"
        : topic + ": " + field + " is " + actual + ", the catalogue declares " + expected;
  }
}
