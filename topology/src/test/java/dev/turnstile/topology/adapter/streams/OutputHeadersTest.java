package dev.turnstile.topology.adapter.streams;

import static org.assertj.core.api.Assertions.assertThat;

import dev.turnstile.contracttest.CloudEventsCheck;
import dev.turnstile.schemas.Json;
import dev.turnstile.schemas.Topic;
import dev.turnstile.schemas.TopicCatalogue;
import io.cloudevents.CloudEvent;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.junit.jupiter.api.Test;

/** The cloudevents-kafka writer produces the same header values the topology always wrote. */
class OutputHeadersTest {

  private static Map<String, String> asMap(Headers headers) {
    Map<String, String> map = new LinkedHashMap<>();
    for (Header header : headers) {
      map.put(header.key(), new String(header.value(), StandardCharsets.UTF_8));
    }
    return map;
  }

  @Test
  void theBinaryModeHeadersKeepTheirValues() {
    Headers headers =
        OutputHeaders.cloudEvent(
            TopicCatalogue.DEVICE_SESSIONS,
            "0b8e5c1e/opened",
            "dev.turnstile.device-session.opened.v1",
            "582873",
            Instant.parse("2026-11-30T12:00:00.123Z"));

    assertThat(asMap(headers))
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(
                "ce_specversion", "1.0",
                "ce_id", "0b8e5c1e/opened",
                "ce_source", "/turnstile/topology",
                "ce_type", "dev.turnstile.device-session.opened.v1",
                "ce_time", "2026-11-30T12:00:00.123Z",
                "ce_subject", "582873",
                "content-type", "application/json",
                "ce_dataschema",
                    "https://turnstile.dev/schemas/device-session-event.v1.schema.json"));
  }

  @Test
  void aWholeSecondTimeReadsAsInstantToStringAndNoSubjectMeansNoHeader() {
    Headers headers =
        OutputHeaders.cloudEvent(
            TopicCatalogue.REJECTED_EVENTS,
            "id",
            "dev.turnstile.rejected-event.v1",
            null,
            Instant.parse("2026-11-30T12:00:00Z"));

    assertThat(asMap(headers))
        .containsEntry("ce_time", "2026-11-30T12:00:00Z")
        .doesNotContainKey("ce_subject");
    CloudEvent event =
        CloudEventsCheck.assertCloudEvent(
            "rejected-events.v1", headers, "{}".getBytes(StandardCharsets.UTF_8));
    assertThat(event.getSubject()).isNull();
  }

  @Test
  void theDataSchemaIsTheIdOfTheSchemaTheCatalogueNames() throws IOException {
    for (Topic topic : TopicCatalogue.ALL) {
      if (topic.valueSchema() == null) {
        continue;
      }
      try (InputStream in = getClass().getClassLoader().getResourceAsStream(topic.valueSchema())) {
        String id = Json.mapper().readTree(in).path("$id").asText();
        assertThat(OutputHeaders.dataSchema(topic)).as(topic.baseName()).hasToString(id);
      }
    }
  }
}
