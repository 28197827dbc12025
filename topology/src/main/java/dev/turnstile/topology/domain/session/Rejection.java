package dev.turnstile.topology.domain.session;

import dev.turnstile.schemas.DeviceEvent;
import dev.turnstile.schemas.RejectionReason;

/** A device event the session rules refused, with the machine-readable reason and a sentence. */
public record Rejection(RejectionReason reason, String detail, DeviceEvent event) {}
