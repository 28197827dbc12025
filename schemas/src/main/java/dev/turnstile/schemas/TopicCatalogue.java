package dev.turnstile.schemas;

import java.time.Duration;
import java.util.List;

/**
 * The only place where Turnstile's topics are declared. Code, the README's topic table and the
 * Kubernetes topic manifests are derived from or checked against this list.
 */
public final class TopicCatalogue {

  /** Device events as the bridge accepted them, duplicates included. Key: {@code deviceId}. */
  public static final Topic DEVICE_EVENTS_RAW =
      new Topic(
          "device-events.raw.v1",
          6,
          (short) 3,
          Duration.ofDays(14),
          "delete",
          "deviceId",
          "dev/turnstile/schemas/device-event.v1.schema.json");

  /** Session lifecycle: opened, closed, superseded, expired. Key: {@code deviceId}. */
  public static final Topic DEVICE_SESSIONS =
      new Topic(
          "device-sessions.v1",
          6,
          (short) 3,
          Duration.ofDays(30),
          "delete",
          "deviceId",
          "dev/turnstile/schemas/device-session-event.v1.schema.json");

  /** Events a rule refused, with a machine-readable reason. Key: the source's key. */
  public static final Topic REJECTED_EVENTS =
      new Topic(
          "rejected-events.v1",
          3,
          (short) 3,
          Duration.ofDays(30),
          "delete",
          "the rejected record's key (deviceId for device events)",
          "dev/turnstile/schemas/rejected-event.v1.schema.json");

  public static final List<Topic> ALL =
      List.of(DEVICE_EVENTS_RAW, DEVICE_SESSIONS, REJECTED_EVENTS);

  private TopicCatalogue() {}
}
