package dev.turnstile.topology.domain.session;

import dev.turnstile.schemas.DeviceEvent;

/** A {@code Finished} event that arrived before its {@code Started}, held until the grace ends. */
public record HeldFinish(DeviceEvent event, long arrivedAtMillis) {}
