package dev.turnstile.bridge.application;

import com.fasterxml.jackson.databind.JsonNode;
import dev.turnstile.bridge.port.in.AcceptDeviceEventUseCase;
import dev.turnstile.bridge.port.out.PublishEventPort;
import dev.turnstile.bridge.port.out.PublishEventPort.PublishedEvent;
import dev.turnstile.bridge.port.out.PublishException;
import dev.turnstile.schemas.DeviceEvent;
import dev.turnstile.schemas.DeviceEventType;
import io.micrometer.core.instrument.Timer;
import java.time.Clock;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checks a device's event, writes it as a CloudEvent keyed by {@code deviceId}, and remembers it
 * once acknowledged so that a device retrying after a lost response is answered without a second
 * write. A retry that races the first write is written again: the topology's dedup absorbs it.
 */
public final class AcceptDeviceEventService implements AcceptDeviceEventUseCase {

  private static final Logger LOG = LoggerFactory.getLogger(AcceptDeviceEventService.class);

  /**
   * Identifiers (deviceId, eventId, sessionRef): {@link #IDENTIFIER_RULE}. An id made only of dots
   * is excluded: {@code .} and {@code ..} are path segments that URL normalisation removes, so such
   * a device could never be addressed.
   */
  public static final Pattern IDENTIFIER = Pattern.compile("(?!\\.+$)[A-Za-z0-9._~:-]{1,128}");

  /** {@link #IDENTIFIER} in words, for error messages. */
  public static final String IDENTIFIER_RULE = "1..128 of [A-Za-z0-9._~:-], not only dots";

  /** The form of {@code occurredAt}, in words, for error messages. */
  public static final String OCCURRED_AT_RULE =
      "an RFC 3339 date-time with an offset, e.g. 2015-03-02T08:00:00-08:00";

  /** A leap second in an RFC 3339 time: {@code hh:mm:60}, fraction and offset as may follow. */
  private static final Pattern LEAP_SECOND = Pattern.compile(".*[Tt ]\\d{2}:\\d{2}:60(\\D.*)?$");

  private final PublishEventPort publisher;
  private final String topic;
  private final Clock clock;
  private final BridgeMetrics metrics;
  private final RecentlyAccepted<EventKey> recentlyAccepted;
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
            : new RecentlyAccepted<>(
                (int) Math.min(cacheSize, Integer.MAX_VALUE), cacheTtl, System::nanoTime);
    if (recentlyAccepted != null) {
      metrics.bindDuplicateCache(recentlyAccepted);
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
    EventKey key = new EventKey(event.deviceId(), event.eventId());
    String fingerprint = ContentFingerprint.of(command);
    String first = recentlyAccepted == null ? null : recentlyAccepted.fingerprint(key);
    if (first != null) {
      return CompletableFuture.completedFuture(duplicate(event, !first.equals(fingerprint)));
    }
    Timer.Sample write = metrics.kafkaWriteStarted();
    return publisher
        .publish(topic, event.deviceId(), DeviceCloudEvents.of(event))
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
        publisher.publishAll(
            topic, deviceId, writes.stream().map(w -> DeviceCloudEvents.of(w.event())).toList());
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
    Map<EventKey, String> earlier = new HashMap<>();
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
      EventKey key = new EventKey(event.deviceId(), event.eventId());
      String fingerprint = ContentFingerprint.of(command);
      String first = earlier.get(key);
      if (first == null && recentlyAccepted != null) {
        first = recentlyAccepted.fingerprint(key);
      }
      if (first != null) {
        outcomes[i] = duplicate(event, !first.equals(fingerprint));
        continue;
      }
      earlier.put(key, fingerprint);
      writes.add(new Write(i, key, fingerprint, event));
    }
    return writes;
  }

  private Accepted acknowledged(Write write, PublishedEvent published) {
    if (recentlyAccepted != null) {
      recentlyAccepted.remember(write.key(), write.fingerprint());
    }
    metrics.accepted();
    return new Accepted(
        write.event().eventId(), published.topic(), published.partition(), published.offset());
  }

  /** An event of a batch to be written, at its index in the batch. */
  private record Write(int index, EventKey key, String fingerprint, DeviceEvent event) {}

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

  private DeviceEvent validate(AcceptDeviceEventCommand command) {
    List<Violation> violations = new ArrayList<>();
    if (command.deviceId() == null || !IDENTIFIER.matcher(command.deviceId()).matches()) {
      violations.add(new Violation("", "deviceId", "deviceId must be " + IDENTIFIER_RULE));
    }
    checkIdentifier("/eventId", command.eventId(), true, violations);
    checkIdentifier("/sessionRef", command.sessionRef(), false, violations);
    DeviceEventType type = parseType(command.type(), violations);
    OffsetDateTime occurredAt = parseTimestamp(command.occurredAt(), violations);
    if (occurredAt != null) {
      String outside = window.problem(occurredAt, clock.instant());
      if (outside != null) {
        violations.add(new Violation("/occurredAt", "range", outside));
      }
    }
    JsonNode attributes = command.attributes();
    if (attributes != null && !attributes.isObject()) {
      violations.add(new Violation("/attributes", "type", "attributes must be a JSON object"));
    }
    if (!violations.isEmpty()) {
      throw new InvalidDeviceEventException(violations);
    }
    return new DeviceEvent(
        command.deviceId(),
        command.eventId(),
        type,
        occurredAt,
        command.sessionRef(),
        attributes,
        clock.instant());
  }

  private static void checkIdentifier(
      String pointer, String value, boolean required, List<Violation> violations) {
    if (value == null) {
      if (required) {
        violations.add(new Violation(pointer, "required", pointer.substring(1) + " is required"));
      }
    } else if (!IDENTIFIER.matcher(value).matches()) {
      violations.add(
          new Violation(pointer, "pattern", pointer.substring(1) + " must be " + IDENTIFIER_RULE));
    }
  }

  private static DeviceEventType parseType(String type, List<Violation> violations) {
    for (DeviceEventType candidate : DeviceEventType.values()) {
      if (candidate.name().equals(type)) {
        return candidate;
      }
    }
    violations.add(new Violation("/type", "enum", "type must be Started or Finished"));
    return null;
  }

  /** RFC 3339 with its offset: a local time without one says nothing about the instant. */
  static OffsetDateTime parseTimestamp(String value, List<Violation> violations) {
    if (value == null) {
      violations.add(new Violation("/occurredAt", "required", "occurredAt is required"));
      return null;
    }
    try {
      return OffsetDateTime.parse(
          value.toUpperCase(Locale.ROOT), DateTimeFormatter.ISO_OFFSET_DATE_TIME);
    } catch (DateTimeParseException e) {
      violations.add(new Violation("/occurredAt", "format", timestampProblem(value)));
      return null;
    }
  }

  /** Why {@code value} is not an acceptable {@code occurredAt}, for a value that is not one. */
  public static String timestampProblem(String value) {
    if (value != null && LEAP_SECOND.matcher(value).matches()) {
      return "occurredAt is a leap second (seconds 60), which java.time cannot represent: send"
          + " seconds 00..59 (e.g. 23:59:59), as "
          + OCCURRED_AT_RULE;
    }
    return "occurredAt must be " + OCCURRED_AT_RULE;
  }

  private record EventKey(String deviceId, String eventId) {}
}
