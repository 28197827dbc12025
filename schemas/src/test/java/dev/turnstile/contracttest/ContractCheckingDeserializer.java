package dev.turnstile.contracttest;

import dev.turnstile.schemas.Topic;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.serialization.Deserializer;

/**
 * A value deserializer for tests that hands back the raw bytes after checking the record's
 * contract: the value validates against the topic's schema and a standard CloudEvents consumer can
 * read the record. Plugged into test output topics, it checks every record a test reads.
 */
public final class ContractCheckingDeserializer implements Deserializer<byte[]> {

  private final Topic topic;

  public ContractCheckingDeserializer(Topic topic) {
    this.topic = topic;
  }

  @Override
  public byte[] deserialize(String topicName, byte[] data) {
    throw new UnsupportedOperationException("a contract check needs the record headers");
  }

  @Override
  public byte[] deserialize(String topicName, Headers headers, byte[] data) {
    if (data != null) {
      if (topic.valueSchema() != null) {
        SchemaValidator.assertValid(topic.valueSchema(), data);
      }
      CloudEventsCheck.assertCloudEvent(topicName, headers, data);
    }
    return data;
  }
}
