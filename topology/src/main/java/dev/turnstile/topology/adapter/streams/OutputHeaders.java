package dev.turnstile.topology.adapter.streams;

import dev.turnstile.schemas.CloudEventHeaders;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * CloudEvents 1.0 attributes for the topology's outputs, Kafka binary content mode ({@code ce_*}
 * headers, JSON data as the value).
 */
final class OutputHeaders {

  static final String SOURCE = "/turnstile/topology";

  private OutputHeaders() {}

  static Headers cloudEvent(String id, String type, String subject, Instant time, String schema) {
    RecordHeaders headers = new RecordHeaders();
    add(headers, CloudEventHeaders.SPEC_VERSION, "1.0");
    add(headers, CloudEventHeaders.ID, id);
    add(headers, CloudEventHeaders.SOURCE, SOURCE);
    add(headers, CloudEventHeaders.TYPE, type);
    add(headers, CloudEventHeaders.TIME, time.toString());
    if (subject != null) {
      add(headers, CloudEventHeaders.SUBJECT, subject);
    }
    add(headers, CloudEventHeaders.DATA_SCHEMA, schema);
    add(headers, CloudEventHeaders.CONTENT_TYPE, "application/json");
    return headers;
  }

  private static void add(Headers headers, String name, String value) {
    headers.add(name, value.getBytes(StandardCharsets.UTF_8));
  }
}
