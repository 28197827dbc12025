package dev.turnstile.topology.domain.merge;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Map;
import java.util.Objects;

/**
 * JSON Merge Patch, RFC 7396, on Jackson trees.
 *
 * <p>The rules, from RFC 7396 section 2 ({@code MergePatch(Target, Patch)}):
 *
 * <ul>
 *   <li>a patch that is an object is merged member by member: a member whose value is {@code null}
 *       removes that member from the target (absent members stay absent), any other value is merged
 *       recursively into the target's member;
 *   <li>when the patch is an object and the target is not (a scalar, an array, {@code null} or
 *       nothing at all), the target is first replaced by {@code {}};
 *   <li>a patch that is not an object (array, string, number, boolean, {@code null}) replaces the
 *       target wholesale: arrays are never merged element by element.
 * </ul>
 *
 * <p>Consequences the RFC states in section 1: a merge patch cannot set a member to {@code null}
 * and cannot patch inside arrays; {@code null} values already in the target are kept unless the
 * patch touches their member (Appendix A, {@code {"e":null}}).
 */
public final class JsonMergePatch {

  private JsonMergePatch() {}

  /**
   * Applies {@code patch} to {@code target} and returns the result as a new tree. Neither input is
   * mutated, and the result shares no node with them, so callers may mutate it freely.
   *
   * @param target the document to patch; Java {@code null} or a missing node means "no document
   *     yet" and behaves like any non-object target (RFC 7396 section 2)
   * @param patch the merge patch; a JSON {@code null} node is a legal patch that yields {@code
   *     null}
   * @return the patched document; a {@code NullNode} when the patch is JSON {@code null}
   * @throws NullPointerException when {@code patch} is Java {@code null}
   */
  public static JsonNode apply(JsonNode target, JsonNode patch) {
    Objects.requireNonNull(patch, "patch");
    if (!patch.isObject()) {
      return patch.deepCopy();
    }
    ObjectNode result =
        target != null && target.isObject()
            ? ((ObjectNode) target).deepCopy()
            : JsonNodeFactory.instance.objectNode();
    mergeInto(result, (ObjectNode) patch);
    return result;
  }

  /** Merges an object patch into a tree this class owns (already a copy), so it may mutate it. */
  private static void mergeInto(ObjectNode owned, ObjectNode patch) {
    for (Map.Entry<String, JsonNode> member : patch.properties()) {
      JsonNode value = member.getValue();
      if (value.isNull()) {
        owned.remove(member.getKey());
      } else if (value.isObject()) {
        JsonNode current = owned.get(member.getKey());
        ObjectNode child =
            current != null && current.isObject()
                ? (ObjectNode) current
                : JsonNodeFactory.instance.objectNode();
        mergeInto(child, (ObjectNode) value);
        owned.set(member.getKey(), child);
      } else {
        owned.set(member.getKey(), value.deepCopy());
      }
    }
  }
}
