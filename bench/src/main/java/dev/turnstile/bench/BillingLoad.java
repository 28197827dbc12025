package dev.turnstile.bench;

import dev.turnstile.bridge.adapter.kafka.KafkaEventPublisher;
import dev.turnstile.bridge.application.KeyRule;
import dev.turnstile.bridge.application.RelayServiceBusMessageService;
import dev.turnstile.bridge.port.in.RelayServiceBusMessageUseCase.Complete;
import dev.turnstile.bridge.port.in.RelayServiceBusMessageUseCase.ReceivedMessage;
import dev.turnstile.bridge.port.out.BodyValidator;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Writes one billing message per session of a {@link DeviceEventLoad} to {@code
 * servicebus-messages.raw.v1} (or a topic of the same layout) through the bridge's own Service Bus
 * relay (the records are what the bridge writes for a message received from the {@code billing}
 * queue: body unchanged, CloudEvents and {@code ce_sb*} headers, {@code sb-prop-mergeKey}), so each
 * session merges with its billing and settles on {@code post-merge.v1}.
 */
final class BillingLoad {

  private BillingLoad() {}

  /**
   * @param topic where the messages go, e.g. {@code servicebus-messages.raw.v1}
   * @param sessionRefs the sessions of the device load, each billed once under its reference
   * @return billing messages written
   */
  static long write(String bootstrap, String topic, List<String> sessionRefs) {
    KafkaEventPublisher publisher =
        new KafkaEventPublisher(
            Map.of("bootstrap.servers", bootstrap),
            Duration.ofSeconds(30),
            20_000,
            Clock.systemUTC());
    RelayServiceBusMessageService relay =
        new RelayServiceBusMessageService(
            publisher,
            "bench.servicebus.windows.net",
            Map.of(
                "billing",
                new RelayServiceBusMessageService.Route(
                    topic, KeyRule.parse("property:mergeKey"), true, BodyValidator.NONE)));
    Semaphore window = new Semaphore(10_000);
    AtomicReference<Throwable> failure = new AtomicReference<>();
    AtomicLong written = new AtomicLong();
    OffsetDateTime now = OffsetDateTime.now(ZoneOffset.UTC);
    try {
      for (int i = 0; i < sessionRefs.size(); i++) {
        String session = sessionRefs.get(i);
        byte[] body =
            ("{\"sessionId\":\""
                    + session
                    + "\",\"userId\":\"u-"
                    + (i % 97)
                    + "\",\"kwhTotal\":"
                    + (i % 50)
                    + ".25,\"dollars\":"
                    + (i % 9)
                    + ".50}")
                .getBytes(StandardCharsets.UTF_8);
        ReceivedMessage message =
            new ReceivedMessage(
                "billing",
                "billing",
                "bill-" + session,
                i + 1,
                now,
                0,
                null,
                null,
                null,
                null,
                "application/json",
                Map.of("mergeKey", session),
                body);
        window.acquire();
        relay
            .relay(message)
            .whenComplete(
                (settlement, error) -> {
                  if (error != null || !(settlement instanceof Complete)) {
                    failure.compareAndSet(
                        null,
                        error != null
                            ? error
                            : new IllegalStateException("not written: " + settlement));
                  } else {
                    written.incrementAndGet();
                  }
                  window.release();
                });
      }
      window.acquire(10_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while loading billing", e);
    } finally {
      publisher.close(Duration.ofSeconds(30));
    }
    if (failure.get() != null) {
      throw new IllegalStateException("the billing load could not be written", failure.get());
    }
    return written.get();
  }
}
