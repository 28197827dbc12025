package dev.turnstile.bridge.port.out;

import static org.assertj.core.api.Assertions.assertThat;

import dev.turnstile.bridge.port.out.PublishEventPort.PublishedEvent;
import io.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * What every {@link PublishEventPort} does, run against the in-memory fake the application tests
 * use ({@link InMemoryPublisherContractTest}) and against the Kafka adapter on a real broker
 * ({@code KafkaEventPublisherContractIT}): an acknowledged write is stored with its key,
 * CloudEvents attributes, extra headers and data at the coordinates the acknowledgement names; one
 * key's writes keep their order on one partition, one at a time and as a sequence.
 */
public abstract class PublishEventPortContract {

  /** A record as stored, read back from the port's topic. */
  public record Stored(
      String key, int partition, long offset, Map<String, String> headers, byte[] data) {}

  /** The port under test, writing to topics {@link #freshTopic()} made. */
  protected abstract PublishEventPort port();

  /** A topic that exists and holds nothing yet. */
  protected abstract String freshTopic();

  /**
   * The records of {@code topic} as stored, at least {@code count} of them, ordered by partition
   * then offset; CloudEvents attributes as their {@code ce_*} headers.
   */
  protected abstract List<Stored> readBack(String topic, int count);

  @Test
  void anAcknowledgedWriteIsStoredWithItsKeyAttributesHeadersAndData() throws Exception {
    String topic = freshTopic();
    byte[] data = "{\"n\":1}".getBytes(StandardCharsets.UTF_8);

    PublishedEvent ack =
        await(port().publish(topic, "station-7", event("e-1", data), Map.of("sb-prop-x", "1")));

    assertThat(ack.topic()).isEqualTo(topic);
    List<Stored> stored = readBack(topic, 1);
    assertThat(stored).hasSize(1);
    Stored record = stored.get(0);
    assertThat(record.key()).isEqualTo("station-7");
    assertThat(record.partition()).isEqualTo(ack.partition());
    assertThat(record.offset()).isEqualTo(ack.offset());
    assertThat(record.headers())
        .containsEntry("ce_id", "e-1")
        .containsEntry("ce_type", "dev.turnstile.test.v1")
        .containsEntry("ce_source", "/devices/station-7")
        .containsEntry("sb-prop-x", "1");
    assertThat(record.data()).isEqualTo(data);
  }

  /**
   * Published one after the other, also while the port cannot write yet (a fresh topic: the Kafka
   * publisher has no metadata for it and holds the first writes for a retry): none overtakes one
   * published before it.
   */
  @Test
  void oneKeysWritesKeepTheirOrderOnOnePartition() throws Exception {
    String topic = freshTopic();
    List<CompletionStage<PublishedEvent>> acks = new ArrayList<>();
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      ids.add("e-" + i);
      acks.add(port().publish(topic, "station-7", event("e-" + i, new byte[] {'1'})));
    }

    assertInOrderOnOnePartition(acks);
    assertThat(readBack(topic, 100))
        .extracting(s -> s.headers().get("ce_id"))
        .containsExactlyElementsOf(ids);
  }

  @Test
  void aSequenceGetsOneStagePerEventInOrderOnOnePartition() throws Exception {
    String topic = freshTopic();
    List<CloudEvent> events =
        List.of(
            event("a", new byte[] {'1'}),
            event("b", new byte[] {'2'}),
            event("c", new byte[] {'3'}));

    List<CompletionStage<PublishedEvent>> acks = port().publishAll(topic, "station-7", events);

    assertThat(acks).hasSize(3);
    assertInOrderOnOnePartition(acks);
    assertThat(readBack(topic, 3))
        .extracting(s -> s.headers().get("ce_id"))
        .containsExactly("a", "b", "c");
  }

  private void assertInOrderOnOnePartition(List<CompletionStage<PublishedEvent>> acks)
      throws Exception {
    List<PublishedEvent> published = new ArrayList<>();
    for (CompletionStage<PublishedEvent> ack : acks) {
      published.add(await(ack));
    }
    assertThat(published)
        .extracting(PublishedEvent::partition)
        .containsOnly(published.get(0).partition());
    for (int i = 1; i < published.size(); i++) {
      assertThat(published.get(i).offset()).isGreaterThan(published.get(i - 1).offset());
    }
  }

  /** Holds acknowledgements back where the port under test does (the held fake does not here). */
  protected PublishedEvent await(CompletionStage<PublishedEvent> ack) throws Exception {
    return ack.toCompletableFuture().get(20, TimeUnit.SECONDS);
  }

  private static CloudEvent event(String id, byte[] data) {
    return CloudEventBuilder.v1()
        .withId(id)
        .withSource(URI.create("/devices/station-7"))
        .withType("dev.turnstile.test.v1")
        .withDataContentType("application/json")
        .withData(data)
        .build();
  }
}
