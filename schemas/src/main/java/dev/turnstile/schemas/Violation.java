package dev.turnstile.schemas;

/**
 * One broken rule of an event, as a device or a downstream reader is told it.
 *
 * @param pointer JSON pointer (RFC 6901) into the event ({@code ""} for the whole event, or for a
 *     field that came from outside it, such as the path's {@code deviceId})
 * @param keyword the rule, a JSON Schema keyword where one fits (e.g. {@code pattern}, {@code
 *     format}, {@code required}, {@code enum})
 * @param message human-readable, naming the field and its rule
 */
public record Violation(String pointer, String keyword, String message) {}
