package dev.turnstile.topology.domain.session;

import dev.turnstile.schemas.DeviceSessionEvent;
import java.util.ArrayList;
import java.util.List;

/** What one step of the aggregate produced, in order: session events and rejections. */
public record Outcome(List<DeviceSessionEvent> sessionEvents, List<Rejection> rejections) {

  static Outcome collecting() {
    return new Outcome(new ArrayList<>(), new ArrayList<>());
  }

  public boolean isEmpty() {
    return sessionEvents.isEmpty() && rejections.isEmpty();
  }
}
