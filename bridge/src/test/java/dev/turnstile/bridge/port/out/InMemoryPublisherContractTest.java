package dev.turnstile.bridge.port.out;

import dev.turnstile.bridge.port.out.InMemoryPublisher.Write;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** The fake the application tests use keeps the port's contract. */
class InMemoryPublisherContractTest extends PublishEventPortContract {

  private final InMemoryPublisher publisher = InMemoryPublisher.acknowledging();
  private int topics;

  @Override
  protected PublishEventPort port() {
    return publisher;
  }

  @Override
  protected String freshTopic() {
    return "contract-" + topics++;
  }

  @Override
  protected List<Stored> readBack(String topic, int count) {
    synchronized (publisher.published) {
      return publisher.published.stream()
          .filter(w -> w.topic().equals(topic))
          .sorted(Comparator.comparingLong(Write::offset))
          .map(InMemoryPublisherContractTest::stored)
          .toList();
    }
  }

  /** As the Kafka binding stores it: attributes as {@code ce_*} headers beside the extra ones. */
  private static Stored stored(Write write) {
    Map<String, String> headers = new HashMap<>(write.headers());
    headers.put("ce_id", write.event().getId());
    headers.put("ce_type", write.event().getType());
    headers.put("ce_source", write.event().getSource().toString());
    return new Stored(write.key(), 0, write.offset(), headers, write.event().getData().toBytes());
  }
}
