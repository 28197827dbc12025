package dev.turnstile.topology.adapter.streams;

import dev.turnstile.schemas.Topic;
import io.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import io.cloudevents.kafka.KafkaMessageFactory;
import io.cloudevents.types.Time;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * CloudEvents 1.0 attributes for the topology's outputs in the Kafka protocol binding, binary
 * content mode: the cloudevents-kafka writer turns a {@link CloudEvent} into {@code ce_*} and
 * {@code content-type} headers, so the encoding is the binding's, not ours; the JSON data is the
 * record value, which the processors set themselves.
 *
 * <p><b>Written once per kind of record.</b> Of an output's headers only {@code ce_id}, {@code
 * ce_time} and {@code ce_subject} change from record to record. The writer runs once per topic and
 * type, on a template event, and the headers it writes are kept in its order; a record's own id,
 * subject and time are then encoded as the writer encodes them (UTF-8 text; the time through the
 * SDK's {@link Time#writeTime}). Building and validating an event and running the writer for every
 * record cost about a microsecond per output record; {@code OutputHeadersProperties} checks that
 * both ways write the same headers.
 */
final class OutputHeaders {

  static final String SOURCE = "/turnstile/topology";
  static final String SCHEMA_BASE = "https://turnstile.dev/schemas/";
  private static final URI SOURCE_URI = URI.create(SOURCE);
  private static final String ID = "ce_id";
  private static final String TIME = "ce_time";
  private static final String SUBJECT = "ce_subject";

  private OutputHeaders() {}

  /**
   * The headers of one output record of {@code topic}; {@code ce_dataschema} is the {@code $id} of
   * the schema the catalogue names for it.
   *
   * @param id {@code ce_id}, not null
   * @param subject {@code ce_subject}, omitted when null
   * @throws IllegalStateException when {@code id} is null, as the SDK's builder throws
   */
  static Headers cloudEvent(Topic topic, String id, String type, String subject, Instant time) {
    if (id == null) {
      throw new IllegalStateException("a CloudEvent needs an id (ce_id)");
    }
    Header[] template = TEMPLATES.computeIfAbsent(new Kind(topic, type), OutputHeaders::template);
    RecordHeaders headers = new RecordHeaders();
    for (Header header : template) {
      switch (header.key()) {
        case ID -> headers.add(ID, utf8(id));
        case TIME -> headers.add(TIME, utf8(Time.writeTime("time", time.atOffset(ZoneOffset.UTC))));
        case SUBJECT -> {
          if (subject != null) {
            headers.add(SUBJECT, utf8(subject));
          }
        }
        // A copy: a record's headers are its own to change, the template is every record's.
        default -> headers.add(header.key(), header.value().clone());
      }
    }
    return headers;
  }

  /** The headers as the SDK's writer writes them for one event: what {@link #cloudEvent} keeps. */
  static Headers written(Topic topic, String id, String type, String subject, Instant time) {
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

  /** One record's worth of headers with a subject, for every header's place in the order. */
  private static Header[] template(Kind kind) {
    return written(kind.topic(), "id", kind.type(), "subject", Instant.EPOCH).toArray();
  }

  private static byte[] utf8(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
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

  private record Kind(Topic topic, String type) {}

  private static final Map<Kind, Header[]> TEMPLATES = new ConcurrentHashMap<>();
  private static final Map<Topic, URI> DATA_SCHEMAS = new ConcurrentHashMap<>();
}
