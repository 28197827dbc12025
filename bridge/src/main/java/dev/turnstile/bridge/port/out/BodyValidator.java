package dev.turnstile.bridge.port.out;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Optional;

/**
 * Checks a message body, already read with {@link dev.turnstile.schemas.StrictJson#senders()},
 * against a contract, e.g. a JSON Schema.
 */
@FunctionalInterface
public interface BodyValidator {

  /** Accepts every body. */
  BodyValidator NONE = body -> Optional.empty();

  /** What is wrong with the body, human-readable, or empty when it is valid. */
  Optional<String> violation(JsonNode body);
}
