package dev.turnstile.topology.adapter.streams;

import dev.turnstile.schemas.Topic;
import io.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import io.cloudevents.kafka.KafkaMessageFactory;
import java.net.URI;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * CloudEvents 1.0 attributes for the topology's outputs in the Kafka protocol binding, binary
 * content mode: the cloudevents-kafka writer turns a {@link CloudEvent} into {@code ce_*} and
 * {@code content-type} headers, so the encoding is the binding's, not ours; the JSON data is the
 * record value, which the processors set themselves.
 */
final class OutputHeaders {

  static final String SOURCE = "/turnstile/topology";
  static final String SCHEMA_BASE = "https://turnstile.dev/schemas/";
  private static final URI SOURCE_URI = URI.create(SOURCE);

  private OutputHeaders() {}

  /**
   * The headers of one output record of {@code topic}; {@code ce_dataschema} is the {@code $id} of
   * the schema the catalogue names for it.
   *
   * @param subject {@code ce_subject}, omitted when null
   */
  static Headers cloudEvent(Topic topic, String id, String type, String subject, Instant time) {
    CloudEvent event =
        CloudEventBuilder.v1()
            .withId(id)
            .withSource(SOURCE_URI)
            .withType(type)
            .withTime(time.atOffset(ZoneOffset.UTC))
            .withSubject(subject)
            .withDataContentType("application/json")
            .withDataSchema(dataSchema(topic))
            .build();
    // The topic only names the ProducerRecord the writer builds; the headers do not depend on it.
    Headers written =
        KafkaMessageFactory.createWriter(topic.baseName()).writeBinary(event).headers();
    return new RecordHeaders(written.toArray());
  }

  /** The schema's {@code $id}: its resource file name under {@value #SCHEMA_BASE}. */
  static URI dataSchema(Topic topic) {
    return DATA_SCHEMAS.computeIfAbsent(
        topic,
        t -> {
          String resource = t.valueSchema();
          return URI.create(SCHEMA_BASE + resource.substring(resource.lastIndexOf('/') + 1));
        });
  }

  private static final Map<Topic, URI> DATA_SCHEMAS = new ConcurrentHashMap<>();
}
