package dev.turnstile.bridge.application;

import java.util.Locale;

/**
 * Where the Kafka record key of a Service Bus message comes from ({@code
 * bridge.servicebus.entity.<name>.key}).
 *
 * @param source what to read
 * @param argument the property name ({@link Source#PROPERTY}) or the JSON pointer ({@link
 *     Source#POINTER}); empty otherwise
 */
public record KeyRule(Source source, String argument) {

  /** What a key is read from. */
  public enum Source {
    /** The message's {@code SessionId}: keeps a session's order within one partition. */
    SESSION_ID,
    /** The message's {@code PartitionKey}. */
    PARTITION_KEY,
    /** An application property, as a string. */
    PROPERTY,
    /** A JSON pointer into the body, a string or number there. */
    POINTER,
    /** The event ID: the {@code MessageId}, or {@code <entity>/<sequenceNumber>}. */
    MESSAGE_ID
  }

  /** The default: one key per message, spreading messages over partitions. */
  public static final KeyRule MESSAGE_ID = new KeyRule(Source.MESSAGE_ID, "");

  /**
   * Parses {@code session-id | partition-key | property:<name> | pointer:</json/pointer> |
   * message-id}.
   *
   * @throws IllegalArgumentException naming the accepted forms
   */
  public static KeyRule parse(String text) {
    String value = text.trim();
    String lower = value.toLowerCase(Locale.ROOT);
    if (lower.startsWith("property:") && value.length() > "property:".length()) {
      return new KeyRule(Source.PROPERTY, value.substring("property:".length()));
    }
    if (lower.startsWith("pointer:/")) {
      return new KeyRule(Source.POINTER, value.substring("pointer:".length()));
    }
    return switch (lower) {
      case "session-id" -> new KeyRule(Source.SESSION_ID, "");
      case "partition-key" -> new KeyRule(Source.PARTITION_KEY, "");
      case "message-id" -> MESSAGE_ID;
      default ->
          throw new IllegalArgumentException(
              "must be session-id, partition-key, property:<name>, pointer:</json/pointer> or"
                  + " message-id, got '"
                  + text
                  + "'");
    };
  }

  @Override
  public String toString() {
    String name = source.name().toLowerCase(Locale.ROOT).replace('_', '-');
    return argument.isEmpty() ? name : name + ":" + argument;
  }
}
