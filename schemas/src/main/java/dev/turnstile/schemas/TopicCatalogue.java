package dev.turnstile.schemas;

import java.time.Duration;
import java.util.List;

/**
 * The only place where Turnstile's topics are declared. Code, the topic table of docs/design.md and
 * the Kubernetes topic manifests are derived from or checked against this list.
 */
public final class TopicCatalogue {

  /**
   * Device events as the bridge accepted them, duplicates included, each with who sent it ({@link
   * AuthContext}). Key: {@code deviceId}.
   */
  public static final Topic DEVICE_EVENTS_RAW =
      new Topic(
          "device-events.raw.v1",
          6,
          (short) 3,
          Duration.ofDays(14),
          "delete",
          "deviceId",
          "dev/turnstile/schemas/device-event.v1.schema.json",
          "bridge");

  /** Session lifecycle: opened, closed, superseded, expired. Key: {@code deviceId}. */
  public static final Topic DEVICE_SESSIONS =
      new Topic(
          "device-sessions.v1",
          6,
          (short) 3,
          Duration.ofDays(30),
          "delete",
          "deviceId",
          "dev/turnstile/schemas/device-session-event.v1.schema.json",
          "topology");

  /** Events a rule refused, with a machine-readable reason. Key: the source's key. */
  public static final Topic REJECTED_EVENTS =
      new Topic(
          "rejected-events.v1",
          3,
          (short) 3,
          Duration.ofDays(30),
          "delete",
          "the rejected record's key (deviceId for device events)",
          "dev/turnstile/schemas/rejected-event.v1.schema.json",
          "topology");

  /**
   * Service Bus messages as the bridge received them, duplicates included: the body unchanged
   * (usually JSON), Service Bus metadata and the entity it came from ({@link AuthContext}) in
   * CloudEvents headers, see {@link ServiceBusHeaders}. Key: configured per entity (the billing
   * entity uses {@code sessionId}). No value schema: the body is whatever the sender put on Service
   * Bus.
   */
  public static final Topic SERVICEBUS_MESSAGES_RAW =
      new Topic(
          "servicebus-messages.raw.v1",
          6,
          (short) 3,
          Duration.ofDays(14),
          "delete",
          "configured per Service Bus entity (billing: the mergeKey property)",
          null,
          "bridge");

  /**
   * Patches on their way to the merge stage, re-keyed by merge key so that every patch of one key,
   * from any source, reaches the same partition and therefore the same task and {@code
   * merge-store}. Written and read only by the topology. Key: the merge key.
   */
  public static final Topic MERGE_INPUTS =
      new Topic(
          "merge-inputs.v1",
          6,
          (short) 3,
          Duration.ofDays(7),
          "delete",
          "mergeKey",
          "dev/turnstile/schemas/merge-input.v1.schema.json",
          "topology");

  /** Each merge's result: the merged document and its deterministic id. Key: the merge key. */
  public static final Topic MERGE_RESULTS =
      new Topic(
          "merge-results.v1",
          6,
          (short) 3,
          Duration.ofDays(30),
          "delete",
          "mergeKey",
          "dev/turnstile/schemas/merge-result.v1.schema.json",
          "topology");

  /**
   * Complete merged documents with derived fields, once per distinct content (by default a settled
   * charging session). Key: the merge key.
   */
  public static final Topic POST_MERGE =
      new Topic(
          "post-merge.v1",
          6,
          (short) 3,
          Duration.ofDays(30),
          "delete",
          "mergeKey",
          "dev/turnstile/schemas/post-merge.v1.schema.json",
          "topology");

  public static final List<Topic> ALL =
      List.of(
          DEVICE_EVENTS_RAW,
          DEVICE_SESSIONS,
          REJECTED_EVENTS,
          SERVICEBUS_MESSAGES_RAW,
          MERGE_INPUTS,
          MERGE_RESULTS,
          POST_MERGE);

  private TopicCatalogue() {}
}
