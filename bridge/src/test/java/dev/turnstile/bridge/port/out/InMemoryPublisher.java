package dev.turnstile.bridge.port.out;

import dev.turnstile.bridge.port.out.PublishException.Reason;
import io.cloudevents.CloudEvent;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

/**
 * The one in-memory {@link PublishEventPort} of the tests: one partition per topic, offsets from 0
 * in write order. It either acknowledges each write at once or holds every acknowledgement until
 * the test answers it ({@link #ackAll}, {@link #failAll}, {@link #answer}), so a test can look at
 * what happens before Kafka answers. {@link PublishEventPortContract} runs against it and against
 * the Kafka adapter, so what the tests assume of it holds of the real thing.
 */
public final class InMemoryPublisher implements PublishEventPort {

  /** One write, with its acknowledgement as the caller sees it. */
  public record Write(
      String topic,
      String key,
      CloudEvent event,
      Map<String, String> headers,
      long offset,
      CompletableFuture<PublishedEvent> ack) {}

  /** Every write taken, in order. */
  public final List<Write> published = Collections.synchronizedList(new ArrayList<>());

  /** The event ids of each {@code publishAll} call, in the order given. */
  public final List<List<String>> sequences = Collections.synchronizedList(new ArrayList<>());

  private final boolean holdAcks;
  private final List<Write> pending = new ArrayList<>();
  private final Map<String, Long> nextOffset = new HashMap<>();
  private volatile Reason failWith;

  private InMemoryPublisher(boolean holdAcks) {
    this.holdAcks = holdAcks;
  }

  /** Acknowledges every write at once. */
  public static InMemoryPublisher acknowledging() {
    return new InMemoryPublisher(false);
  }

  /** Holds every acknowledgement until the test answers it. */
  public static InMemoryPublisher holding() {
    return new InMemoryPublisher(true);
  }

  /** From now on, refuses every write at once with {@code reason} ({@code null}: takes them). */
  public void failWith(Reason reason) {
    this.failWith = reason;
  }

  @Override
  public synchronized CompletionStage<PublishedEvent> publish(
      String topic, String key, CloudEvent event, Map<String, String> headers) {
    Reason refusal = failWith;
    if (refusal != null) {
      return CompletableFuture.failedFuture(new PublishException(refusal, "in memory", null));
    }
    long offset = nextOffset.merge(topic, 1L, Long::sum) - 1;
    Write write =
        new Write(topic, key, event, Map.copyOf(headers), offset, new CompletableFuture<>());
    published.add(write);
    if (holdAcks) {
      pending.add(write);
    } else {
      acknowledge(write);
    }
    return write.ack();
  }

  @Override
  public List<CompletionStage<PublishedEvent>> publishAll(
      String topic, String key, List<CloudEvent> events) {
    sequences.add(events.stream().map(CloudEvent::getId).toList());
    return PublishEventPort.super.publishAll(topic, key, events);
  }

  /** Acknowledges every held write. */
  public void ackAll() {
    answer(write -> null);
  }

  /** Fails every held write with {@code reason}. */
  public void failAll(Reason reason) {
    answer(write -> reason);
  }

  /** Fails each held write with the reason given for it, acknowledges it where none. */
  public void answer(Function<Write, Reason> outcome) {
    List<Write> answering;
    synchronized (this) {
      answering = new ArrayList<>(pending);
      pending.clear();
    }
    for (Write write : answering) {
      Reason reason = outcome.apply(write);
      if (reason == null) {
        acknowledge(write);
      } else {
        write.ack().completeExceptionally(new PublishException(reason, "in memory", null));
      }
    }
  }

  private static void acknowledge(Write write) {
    write.ack().complete(new PublishedEvent(write.topic(), 0, write.offset()));
  }
}
