package dev.turnstile.bridge.adapter.servicebus;

import dev.turnstile.bridge.port.out.PublishEventPort;
import io.cloudevents.CloudEvent;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;

/** Our port, with Kafka's acknowledgement handed on later: a slow Kafka without stopping it. */
final class DelayedPublisher implements PublishEventPort {

  private final PublishEventPort delegate;
  private final BiFunction<String, CloudEvent, Duration> delay;

  /**
   * @param delay per topic and event: how long to hold the ack after Kafka gave it
   */
  DelayedPublisher(PublishEventPort delegate, BiFunction<String, CloudEvent, Duration> delay) {
    this.delegate = delegate;
    this.delay = delay;
  }

  @Override
  public CompletionStage<PublishedEvent> publish(
      String topic, String key, CloudEvent event, Map<String, String> headers) {
    long millis = delay.apply(topic, event).toMillis();
    return delegate
        .publish(topic, key, event, headers)
        .thenCompose(
            published ->
                CompletableFuture.supplyAsync(
                    () -> published,
                    CompletableFuture.delayedExecutor(millis, TimeUnit.MILLISECONDS)));
  }
}
