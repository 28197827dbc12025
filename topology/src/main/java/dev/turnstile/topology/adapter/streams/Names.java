package dev.turnstile.topology.adapter.streams;

/** Every processor, store and sink of the topology, named once; tests share these names. */
public final class Names {
  public static final String DEVICE_EVENTS_SOURCE = "device-events-source";
  public static final String DEVICE_EVENT_DEDUP = "device-event-dedup";
  public static final String DEVICE_SESSION = "device-session";
  public static final String DEVICE_STATE_STORE = "device-state-store";
  public static final String DEVICE_EVENT_INDEX = "device-event-index";
  public static final String DEVICE_SESSIONS_SINK = "device-sessions-sink";
  public static final String SESSION_MERGE_INPUT = "session-merge-input";
  public static final String SESSION_MERGE_INPUTS_SINK = "session-merge-inputs-sink";

  public static final String SERVICEBUS_MESSAGES_SOURCE = "servicebus-messages-source";
  public static final String SERVICEBUS_MESSAGE_DEDUP = "servicebus-message-dedup";
  public static final String SERVICEBUS_MESSAGE_DEDUP_STORE = "servicebus-message-dedup-store";
  public static final String SERVICEBUS_MERGE_INPUT = "servicebus-merge-input";
  public static final String SERVICEBUS_MERGE_INPUTS_SINK = "servicebus-merge-inputs-sink";

  public static final String MERGE_INPUTS_SOURCE = "merge-inputs-source";
  public static final String MERGE = "merge";
  public static final String MERGE_STORE = "merge-store";
  public static final String MERGE_RESULTS_SINK = "merge-results-sink";

  /**
   * The post-merge stage: no processor of its own, it runs in {@link #MERGE}; its rejections' name.
   */
  public static final String POST_MERGE = "post-merge";

  public static final String POST_MERGE_SINK = "post-merge-sink";

  /**
   * The child of stage {@code stage} that counts its rejections by reason on their way to {@code
   * rejected-events.v1}. Each stage has its own, with its own sink, so no shared sink joins the
   * device path's sub-topology to the merge's (tasks that do not wait for each other's input).
   */
  public static String rejections(String stage) {
    return stage + "-rejections";
  }

  /** The sink of {@link #rejections(String)}. */
  public static String rejectionsSink(String stage) {
    return stage + "-rejections-sink";
  }

  private Names() {}
}
