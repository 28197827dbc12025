package dev.turnstile.topology.adapter.streams;

import com.fasterxml.jackson.databind.JsonNode;
import dev.turnstile.schemas.DeviceSessionEvent;
import dev.turnstile.schemas.RejectedEvent;

/**
 * Every edge of the topology that carries records, with the type it carries: the processors forward
 * through these and {@link TurnstileTopology} wires children from them ({@link Output}).
 */
final class Outputs {
  /** First occurrences of device events, parsed, to {@code device-session}. */
  static final Output<DeviceEventReader.Read> FIRST_DEVICE_EVENTS =
      new Output<>(Names.DEVICE_SESSION);

  /** Session events to {@code device-sessions.v1}. */
  static final Output<DeviceSessionEvent> DEVICE_SESSIONS =
      new Output<>(Names.DEVICE_SESSIONS_SINK);

  /** Closed sessions with a reference, to {@code session-merge-input}. */
  static final Output<DeviceSessionEvent> CLOSED_SESSIONS = new Output<>(Names.SESSION_MERGE_INPUT);

  /** Patches from closed sessions to {@code merge-inputs.v1}. */
  static final Output<MergeInput> SESSION_MERGE_INPUTS =
      new Output<>(Names.SESSION_MERGE_INPUTS_SINK);

  /** First occurrences of Service Bus messages (their bodies) to {@code servicebus-merge-input}. */
  static final Output<byte[]> FIRST_SERVICEBUS_MESSAGES =
      new Output<>(Names.SERVICEBUS_MERGE_INPUT);

  /**
   * Patches from Service Bus messages straight to {@code merge}, in the same task: those whose
   * record already sits where {@code merge-inputs.v1} would put them ({@link
   * ServiceBusMergeInputProcessor}).
   */
  static final Output<MergeProcessor.Input> LOCAL_MERGE_INPUTS = new Output<>(Names.MERGE);

  /** Patches from Service Bus messages not merged in place, to {@code merge-inputs.v1}. */
  static final Output<MergeInput> SERVICEBUS_MERGE_INPUTS =
      new Output<>(Names.SERVICEBUS_MERGE_INPUTS_SINK);

  /**
   * Merge results to {@code merge-results.v1}, already encoded: the merge stage measures the bytes
   * against the document bound before it sends them.
   */
  static final Output<byte[]> MERGE_RESULTS = new Output<>(Names.MERGE_RESULTS_SINK);

  /** Post-merge outputs to {@code post-merge.v1}. */
  static final Output<JsonNode> POST_MERGE = new Output<>(Names.POST_MERGE_SINK);

  /** Stage {@code stage}'s rejections, to its counter ({@link Names#rejections}). */
  static Output<RejectedEvent> rejections(String stage) {
    return new Output<>(Names.rejections(stage));
  }

  /** From a stage's rejections counter to its sink on {@code rejected-events.v1}. */
  static Output<RejectedEvent> rejectionsSink(String stage) {
    return new Output<>(Names.rejectionsSink(stage));
  }

  private Outputs() {}
}
