package dev.turnstile.bridge.application;

import dev.turnstile.bridge.metrics.BridgeMetrics;
import dev.turnstile.bridge.port.in.AcceptDeviceEventUseCase;
import dev.turnstile.bridge.port.out.PublishEventPort;
import dev.turnstile.bridge.port.out.PublishEventPort.PublishedEvent;
import dev.turnstile.bridge.port.out.PublishException;
import dev.turnstile.schemas.AuthContext;
import dev.turnstile.schemas.DeviceEvent;
import dev.turnstile.schemas.OccurredAtWindow;
import dev.turnstile.schemas.Violation;
import io.cloudevents.CloudEvent;
import io.micrometer.core.instrument.Timer;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The use case's orchestration: trusts the command (typed and checked where it was built), refuses
 * an {@code occurredAt} outside the plausible window at its clock, writes the event as a CloudEvent
 * keyed by {@code deviceId}, and remembers it once acknowledged so that a device retrying after a
 * lost response is answered without a second write. A retry that races the first write is written
 * again: the topology's dedup absorbs it.
 */
public final class AcceptDeviceEventService implements AcceptDeviceEventUseCase {

  private static final Logger LOG = LoggerFactory.getLogger(AcceptDeviceEventService.class);

  private final PublishEventPort publisher;
  private final String topic;
  private final Clock clock;
  private final BridgeMetrics metrics;
  private final RecentlyAccepted recentlyAccepted;
  private final OccurredAtWindow window;

  /**
   * @param topic full name of {@code device-events.raw.v1} with its prefix
   * @param cacheSize ids of the recent-accepted cache (the last ones acknowledged); 0 disables it
   * @param cacheTtl how long an acknowledged event is remembered
   * @param window the plausible device timestamps; outside it an event is refused
   */
  public AcceptDeviceEventService(
      PublishEventPort publisher,
      String topic,
      Clock clock,
      BridgeMetrics metrics,
      long cacheSize,
      Duration cacheTtl,
      OccurredAtWindow window) {
    this.window = window;
    this.publisher = publisher;
    this.topic = topic;
    this.clock = clock;
    this.metrics = metrics;
    this.recentlyAccepted =
        cacheSize <= 0
            ? null
            : new RecentlyAccepted(
                (int) Math.min(cacheSize, RecentlyAccepted.MAX_SIZE), cacheTtl, System::nanoTime);
    if (recentlyAccepted != null) {
      metrics.bindDuplicateCache(recentlyAccepted::bindTo);
    }
  }

  /**
   * Forgets every acknowledged event, so that none is answered {@code 200 duplicate}: called when
   * the topic was deleted and created again, which deleted the records the cache vouches for.
   */
  public void forgetAccepted() {
    if (recentlyAccepted != null) {
      recentlyAccepted.forgetAll();
    }
  }

  @Override
  public CompletionStage<Outcome> accept(AcceptDeviceEventCommand command) {
    DeviceEvent event;
    try {
      event = validate(command);
    } catch (InvalidDeviceEventException e) {
      metrics.rejected("semantic");
      return CompletableFuture.failedFuture(e);
    }
    Digest128 key = Digest128.ofEvent(event.deviceId(), event.eventId());
    Digest128 fingerprint = ContentFingerprint.of(command);
    Digest128 first = recentlyAccepted == null ? null : recentlyAccepted.fingerprint(key);
    if (first != null) {
      return CompletableFuture.completedFuture(duplicate(event, !first.equals(fingerprint)));
    }
    Timer.Sample write = metrics.kafkaWriteStarted();
    return publisher
        .publish(topic, event.deviceId(), DeviceCloudEvents.of(event, command.sender()))
        .handle(
            (published, failure) -> {
              metrics.kafkaAnswered(write, failure == null);
              if (failure != null) {
                throw countFailure(failure);
              }
              if (recentlyAccepted != null) {
                recentlyAccepted.remember(key, fingerprint);
              }
              metrics.accepted();
              return new Accepted(
                  event.eventId(), published.topic(), published.partition(), published.offset());
            });
  }

  @Override
  public CompletionStage<List<Outcome>> acceptAll(List<AcceptDeviceEventCommand> commands) {
    if (commands.isEmpty()) {
      throw new IllegalArgumentException("a batch has at least one event");
    }
    String deviceId = commands.get(0).deviceId();
    if (commands.stream().anyMatch(c -> !Objects.equals(deviceId, c.deviceId()))) {
      throw new IllegalArgumentException("a batch holds one device's events");
    }
    Outcome[] outcomes = new Outcome[commands.size()];
    List<Write> writes = writesOf(commands, outcomes);
    if (writes.isEmpty()) {
      return CompletableFuture.completedFuture(List.of(outcomes));
    }
    List<Timer.Sample> samples = writes.stream().map(w -> metrics.kafkaWriteStarted()).toList();
    List<CompletionStage<PublishedEvent>> acks =
        publisher.publishAll(topic, deviceId, cloudEvents(writes));
    AtomicReference<Throwable> notAcknowledged = new AtomicReference<>();
    CompletableFuture<?>[] answered = new CompletableFuture<?>[writes.size()];
    for (int i = 0; i < writes.size(); i++) {
      Write write = writes.get(i);
      Timer.Sample sample = samples.get(i);
      answered[i] =
          acks.get(i)
              .handle(
                  (published, failure) -> {
                    metrics.kafkaAnswered(sample, failure == null);
                    if (failure == null) {
                      outcomes[write.index()] = acknowledged(write, published);
                    } else {
                      Throwable cause = countFailure(failure).getCause();
                      if (cause instanceof PublishException p && !p.reason().retriable()) {
                        outcomes[write.index()] =
                            new NotWritten(write.event().eventId(), p.getMessage());
                      } else {
                        notAcknowledged.compareAndSet(null, cause);
                      }
                    }
                    return null;
                  })
              .toCompletableFuture();
    }
    return CompletableFuture.allOf(answered)
        .thenApply(
            all -> {
              if (notAcknowledged.get() != null) {
                throw new CompletionException(notAcknowledged.get());
              }
              return List.of(outcomes);
            });
  }

  /**
   * Checks each command; fills {@code outcomes} for those not to be written (invalid, or a
   * duplicate of a recent one or of one earlier in the batch) and returns the rest, in order.
   */
  private List<Write> writesOf(List<AcceptDeviceEventCommand> commands, Outcome[] outcomes) {
    List<Write> writes = new ArrayList<>();
    Map<Digest128, Digest128> earlier = new HashMap<>();
    for (int i = 0; i < commands.size(); i++) {
      AcceptDeviceEventCommand command = commands.get(i);
      DeviceEvent event;
      try {
        event = validate(command);
      } catch (InvalidDeviceEventException e) {
        metrics.rejected("semantic");
        outcomes[i] = new Invalid(command.eventId(), e.violations());
        continue;
      }
      Digest128 key = Digest128.ofEvent(event.deviceId(), event.eventId());
      Digest128 fingerprint = ContentFingerprint.of(command);
      Digest128 first = earlier.get(key);
      if (first == null && recentlyAccepted != null) {
        first = recentlyAccepted.fingerprint(key);
      }
      if (first != null) {
        outcomes[i] = duplicate(event, !first.equals(fingerprint));
        continue;
      }
      earlier.put(key, fingerprint);
      writes.add(new Write(i, key, fingerprint, event, command.sender()));
    }
    return writes;
  }

  /** The batch's CloudEvents; what its events share (sender, device) is worked out once. */
  private static List<CloudEvent> cloudEvents(List<Write> writes) {
    List<CloudEvent> events = new ArrayList<>(writes.size());
    DeviceCloudEvents.Sender by = null;
    AuthContext sender = null;
    for (Write write : writes) {
      if (by == null || write.sender() != sender) {
        sender = write.sender();
        by = new DeviceCloudEvents.Sender(sender);
      }
      events.add(by.of(write.event()));
    }
    return events;
  }

  private Accepted acknowledged(Write write, PublishedEvent published) {
    if (recentlyAccepted != null) {
      recentlyAccepted.remember(write.key(), write.fingerprint());
    }
    metrics.accepted();
    return new Accepted(
        write.event().eventId(), published.topic(), published.partition(), published.offset());
  }

  /** An event of a batch to be written, at its index in the batch, and who sent it. */
  private record Write(
      int index, Digest128 key, Digest128 fingerprint, DeviceEvent event, AuthContext sender) {}

  /** First wins; a repeat with other content is answered the same but not silently. */
  private Duplicate duplicate(DeviceEvent event, boolean conflict) {
    if (conflict) {
      LOG.warn(
          "device {} repeated event {} with different content; the first one stands",
          event.deviceId(),
          event.eventId());
      metrics.duplicate("conflicting-content");
    } else {
      metrics.duplicate("none");
    }
    return new Duplicate(event.eventId(), conflict);
  }

  private CompletionException countFailure(Throwable failure) {
    Throwable cause = failure instanceof CompletionException ? failure.getCause() : failure;
    if (cause instanceof PublishException publish) {
      switch (publish.reason()) {
        case SATURATED -> metrics.unavailable("saturated");
        case UNAVAILABLE -> metrics.unavailable("unavailable");
        case REJECTED -> metrics.rejected("kafka-rejected");
      }
    } else {
      metrics.unavailable("error");
    }
    return new CompletionException(cause);
  }

  /**
   * The event to write: the command's fields, trusted, stamped with the bridge's clock; refused
   * only when {@code occurredAt} is outside the plausible window at that clock, the one rule that
   * needs it.
   */
  private DeviceEvent validate(AcceptDeviceEventCommand command) {
    Instant receivedAt = clock.instant();
    Optional<String> implausible = window.problem(command.occurredAt(), receivedAt);
    if (implausible.isPresent()) {
      throw new InvalidDeviceEventException(
          List.of(new Violation("/occurredAt", "range", implausible.get())));
    }
    return new DeviceEvent(
        command.deviceId(),
        command.eventId(),
        command.type(),
        command.occurredAt(),
        command.sessionRef(),
        command.attributes(),
        receivedAt);
  }
}
