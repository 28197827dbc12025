package dev.turnstile.topology.domain.session;

import dev.turnstile.schemas.DeviceSessionEventType;

/** A session reference that has ended on a device, and how. */
public record EndedSession(String sessionRef, DeviceSessionEventType outcome) {}
