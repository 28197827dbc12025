package dev.turnstile.topology.adapter.streams;

/** Every processor, store and sink of the topology, named once; tests share these names. */
public final class Names {
  public static final String DEVICE_EVENTS_SOURCE = "device-events-source";
  public static final String DEVICE_EVENT_DEDUP = "device-event-dedup";
  public static final String DEVICE_EVENT_DEDUP_STORE = "device-event-dedup-store";
  public static final String DEVICE_SESSION = "device-session";
  public static final String DEVICE_SESSION_STORE = "device-session-store";
  public static final String DEVICE_SESSION_DEADLINE_STORE = "device-session-deadline-store";
  public static final String DEVICE_SESSIONS_SINK = "device-sessions-sink";
  public static final String REJECTED_EVENTS_SINK = "rejected-events-sink";

  private Names() {}
}
