package dev.turnstile.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.turnstile.contracttest.GoldenSamples;
import dev.turnstile.schemas.DeviceSessionEvent;
import dev.turnstile.schemas.DeviceSessionEventType;
import io.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import io.cloudevents.kafka.CloudEventDeserializer;
import io.cloudevents.kafka.KafkaMessageFactory;
import java.net.URI;
import java.time.OffsetDateTime;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;

/** The guide's example consumer reads a record as the topology writes it. */
class DeviceSessionsConsumerTest {

  @Test
  void itReadsCommittedRecordsOnlyAndCommitsByHand() {
    assertThat(DeviceSessionsConsumer.config("kafka:9092", "billing-team"))
        .containsEntry(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed")
        .containsEntry(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
  }

  @Test
  void itReadsAClosedSessionFromABinaryModeCloudEvent() {
    byte[] value =
        GoldenSamples.of("device-session-event.v1").stream()
            .filter(s -> s.name().equals("closed.json"))
            .findFirst()
            .orElseThrow()
            .json();
    CloudEvent written =
        CloudEventBuilder.v1()
            .withId("0b8e5c1e-3f5d-3c8a-9a4e-2d7f1b6c9e10/closed")
            .withSource(URI.create("/turnstile/topology"))
            .withType("dev.turnstile.device-session.closed.v1")
            .withTime(OffsetDateTime.parse("2026-11-30T08:00:01Z"))
            .withSubject("582873")
            .withDataContentType("application/json")
            .withData(value)
            .build();
    Headers headers =
        KafkaMessageFactory.createWriter("device-sessions.v1").writeBinary(written).headers();
    CloudEvent read;
    try (CloudEventDeserializer deserializer = new CloudEventDeserializer()) {
      read = deserializer.deserialize("device-sessions.v1", headers, value);
    }
    ConsumerRecord<String, CloudEvent> record =
        new ConsumerRecord<>(
            "device-sessions.v1",
            0,
            42L,
            0L,
            TimestampType.CREATE_TIME,
            0,
            value.length,
            "582873",
            read,
            headers,
            Optional.empty());

    DeviceSessionEvent event = DeviceSessionsConsumer.read(record);

    assertThat(event.type()).isEqualTo(DeviceSessionEventType.Closed);
    assertThat(event.durationMillis()).isEqualTo(5_438_000L);
    assertThat(record.value().getId()).isEqualTo("0b8e5c1e-3f5d-3c8a-9a4e-2d7f1b6c9e10/closed");
  }
}
