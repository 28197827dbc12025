package dev.turnstile.topology.domain.merge;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Objects;

/**
 * One partial record for a merge key: an RFC 7396 merge patch and its place in the merge order.
 *
 * <p>The body is copied on construction, so a caller that keeps mutating its own tree cannot change
 * a patch that a {@link MergeState} holds; treat {@link #body()} as read-only.
 *
 * @param eventId the event's ID within its source; must equal {@code version.eventId()}
 * @param source the event's source; must equal {@code version.source()}
 * @param version where the patch stands in the merge order
 * @param body the merge patch (usually an object; any JSON value is a legal RFC 7396 patch)
 * @throws IllegalArgumentException when the version names another event
 */
public record Patch(String eventId, String source, MergeVersion version, JsonNode body) {

  public Patch {
    Objects.requireNonNull(version, "version");
    Objects.requireNonNull(body, "body");
    if (!version.eventId().equals(eventId) || !version.source().equals(source)) {
      throw new IllegalArgumentException(
          "patch %s/%s carries the version of %s/%s"
              .formatted(source, eventId, version.source(), version.eventId()));
    }
    body = body.deepCopy();
  }

  /** A patch whose identity is the version's. */
  public static Patch of(MergeVersion version, JsonNode body) {
    return new Patch(version.eventId(), version.source(), version, body);
  }

  /** The event this patch came from. */
  public Contribution contribution() {
    return version.contribution();
  }
}
