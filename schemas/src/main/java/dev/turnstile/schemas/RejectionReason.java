package dev.turnstile.schemas;

/** Why an event went to {@code rejected-events.v1}. The codes are part of the contract. */
public enum RejectionReason {
  /** The value is not JSON, or not a valid {@code device-event.v1}. */
  MALFORMED_EVENT,
  /** The record has no {@code ce_id} or {@code ce_source} header, so it cannot be deduplicated. */
  MISSING_EVENT_ID,
  /** A {@code Finished} whose {@code occurredAt} precedes its session's start. */
  FINISHED_BEFORE_STARTED,
  /** A {@code Finished} for which no {@code Started} arrived within the reorder grace. */
  FINISHED_WITHOUT_STARTED,
  /** A {@code Started} for a session reference that is already open on that device. */
  SESSION_ALREADY_OPEN,
  /** An event for a session reference that this device already closed, superseded or expired. */
  SESSION_ALREADY_ENDED,
  /** A second {@code Finished} for a session reference whose {@code Finished} is already held. */
  FINISHED_ALREADY_RECEIVED,
  /** The device holds more early {@code Finished} events than the reorder buffer allows. */
  REORDER_BUFFER_FULL,
  /**
   * A record for the merge stage whose value is not a JSON object, or whose version is unusable.
   */
  NOT_MERGEABLE,
  /** A record for the merge stage without a merge key where one was configured to be. */
  MISSING_MERGE_KEY,
  /** A merge input, or the document it would produce, over the configured size bound. */
  DOCUMENT_TOO_LARGE,
  /** A patch older than its merge key's compacted base: its place in the order is gone. */
  STALE_PATCH,
  /** The post-merge step failed on a merge result; the result is carried in the rejection. */
  POST_MERGE_FAILED,
  /** Accepting the event would grow the device's session state past its byte bound. */
  DEVICE_STATE_FULL,
  /**
   * A copy of an event already seen (same {@code ce_source} and {@code ce_id}) with other content:
   * the first stands, this copy is dropped; the detail gives both content fingerprints.
   */
  DUPLICATE_CONFLICT,
  /**
   * A patch that would grow its merge key's stored state (base and retained patches) past the bound
   * that keeps its changelog record writable; the state is unchanged.
   */
  MERGE_STATE_FULL,
  /**
   * A Service Bus patch that sets or deletes a field another source owns (the closed session's
   * fields of a settled session); the patch is not applied.
   */
  FIELD_OWNED_ELSEWHERE,
  /**
   * A merged document whose field the post-merge step needs holds a value its output schema refuses
   * (the detail names the JSON pointer); nothing is published for it.
   */
  INVALID_FIELD,
  /**
   * A stage failed on the record in a way no rule foresaw (a bug, reported by the processing
   * exception handler); the record is skipped, the stage keeps running.
   */
  PROCESSING_FAILED,
  /** An output record the stage produced was refused by Kafka (e.g. larger than allowed). */
  OUTPUT_TOO_LARGE
}
