package dev.turnstile.bridge.adapter.http;

import com.fasterxml.jackson.databind.JsonNode;
import dev.turnstile.schemas.StrictJson;
import dev.turnstile.schemas.StrictJson.MalformedJsonException;

/**
 * Reads a request body with the one strict reader Turnstile has for what senders send ({@link
 * StrictJson}: no duplicate keys, nothing after the value, bounded depth and sizes, exact numbers),
 * so HTTP and Service Bus give the same bytes the same verdict.
 */
final class RequestJson {

  private RequestJson() {}

  /** Parses a body (UTF-8) into a tree whose numbers are exact. */
  static JsonNode read(byte[] body) throws MalformedJsonException {
    return StrictJson.senders().readTree(body);
  }

  /**
   * Parses a batch body: each event may nest as deep as it may alone ({@link
   * StrictJson#senderArrays()}); a bound of the text broken anywhere refuses the whole batch.
   */
  static JsonNode readBatch(byte[] body) throws MalformedJsonException {
    return StrictJson.senderArrays().readTree(body);
  }
}
