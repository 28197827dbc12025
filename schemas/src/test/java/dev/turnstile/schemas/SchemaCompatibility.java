package dev.turnstile.schemas;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Finds the changes from a released JSON Schema to its current version that would break an existing
 * consumer of the topic, or old records a consumer re-reads. It walks both schemas in step through
 * {@code properties}, {@code $defs}, {@code items}, {@code prefixItems}, {@code if/then/else} and
 * {@code allOf/anyOf/oneOf}; {@code $ref}s are compared where they point, in {@code $defs}.
 *
 * <p>Not a full subschema check: it knows the rules below, the changes this project has made or is
 * likely to make. Anything else (new patterns, tighter bounds) needs a reviewer's eye.
 */
final class SchemaCompatibility {

  /** The rules; each names the change it refuses. */
  enum Rule {
    /** A property a consumer may read is gone. */
    PROPERTY_REMOVED,
    /** A value's {@code type} changed: a consumer parses it as the old type. */
    TYPE_CHANGED,
    /** A property became required: records already on the topic lack it. */
    REQUIRED_ADDED,
    /** An {@code enum} lost a value: records already on the topic carry it. */
    ENUM_NARROWED,
    /** {@code additionalProperties} became false: records with extra members become invalid. */
    ADDITIONAL_PROPERTIES_CLOSED
  }

  /**
   * One breaking change.
   *
   * @param pointer JSON pointer (RFC 6901) into the released schema where the change is
   */
  record Violation(Rule rule, String pointer, String detail) {
    @Override
    public String toString() {
      return rule + " at " + (pointer.isEmpty() ? "/" : pointer) + ": " + detail;
    }
  }

  private static final List<String> NAMED_SUBSCHEMAS = List.of("properties", "$defs");
  private static final List<String> SINGLE_SUBSCHEMAS =
      List.of("items", "if", "then", "else", "not", "contains");
  private static final List<String> LISTED_SUBSCHEMAS =
      List.of("prefixItems", "allOf", "anyOf", "oneOf");

  private SchemaCompatibility() {}

  /** The breaking changes from {@code released} to {@code current}; empty when compatible. */
  static List<Violation> breakingChanges(JsonNode released, JsonNode current) {
    List<Violation> violations = new ArrayList<>();
    compare(released, current, "", violations);
    return violations;
  }

  private static void compare(JsonNode old, JsonNode now, String at, List<Violation> out) {
    if (!old.isObject() || !now.isObject()) {
      return;
    }
    checkType(old, now, at, out);
    checkRequired(old, now, at, out);
    checkEnum(old, now, at, out);
    checkAdditionalProperties(old, now, at, out);
    for (String keyword : NAMED_SUBSCHEMAS) {
      JsonNode oldMembers = old.path(keyword);
      Iterator<Map.Entry<String, JsonNode>> members = oldMembers.fields();
      while (members.hasNext()) {
        Map.Entry<String, JsonNode> member = members.next();
        String pointer = at + "/" + keyword + "/" + escape(member.getKey());
        JsonNode counterpart = now.path(keyword).get(member.getKey());
        if (counterpart == null) {
          if (keyword.equals("properties")) {
            out.add(new Violation(Rule.PROPERTY_REMOVED, pointer, member.getKey() + " removed"));
          }
        } else {
          compare(member.getValue(), counterpart, pointer, out);
        }
      }
    }
    for (String keyword : SINGLE_SUBSCHEMAS) {
      if (old.has(keyword) && now.has(keyword)) {
        compare(old.get(keyword), now.get(keyword), at + "/" + keyword, out);
      }
    }
    for (String keyword : LISTED_SUBSCHEMAS) {
      JsonNode oldList = old.path(keyword);
      JsonNode newList = now.path(keyword);
      for (int i = 0; i < Math.min(oldList.size(), newList.size()); i++) {
        compare(oldList.get(i), newList.get(i), at + "/" + keyword + "/" + i, out);
      }
    }
  }

  private static void checkType(JsonNode old, JsonNode now, String at, List<Violation> out) {
    if (old.has("type") && !texts(old.get("type")).equals(texts(now.path("type")))) {
      out.add(
          new Violation(
              Rule.TYPE_CHANGED,
              at + "/type",
              "was " + old.get("type") + ", now " + (now.has("type") ? now.get("type") : "any")));
    }
  }

  private static void checkRequired(JsonNode old, JsonNode now, String at, List<Violation> out) {
    Set<String> before = texts(old.path("required"));
    for (String name : texts(now.path("required"))) {
      if (!before.contains(name)) {
        out.add(new Violation(Rule.REQUIRED_ADDED, at + "/required", name + " newly required"));
      }
    }
  }

  private static void checkEnum(JsonNode old, JsonNode now, String at, List<Violation> out) {
    if (!old.has("enum")) {
      return;
    }
    Set<String> after = now.has("enum") ? texts(now.get("enum")) : null;
    for (String value : texts(old.get("enum"))) {
      if (after != null && !after.contains(value)) {
        out.add(new Violation(Rule.ENUM_NARROWED, at + "/enum", value + " removed"));
      }
    }
  }

  private static void checkAdditionalProperties(
      JsonNode old, JsonNode now, String at, List<Violation> out) {
    boolean wasClosed =
        old.path("additionalProperties").isBoolean()
            && !old.get("additionalProperties").booleanValue();
    boolean isClosed =
        now.path("additionalProperties").isBoolean()
            && !now.get("additionalProperties").booleanValue();
    if (isClosed && !wasClosed) {
      out.add(
          new Violation(
              Rule.ADDITIONAL_PROPERTIES_CLOSED, at + "/additionalProperties", "newly false"));
    }
  }

  /** A string or array of strings as a set; other values by their JSON text. */
  private static Set<String> texts(JsonNode node) {
    Set<String> values = new HashSet<>();
    if (node.isArray()) {
      node.forEach(v -> values.add(v.isTextual() ? v.textValue() : v.toString()));
    } else if (!node.isMissingNode()) {
      values.add(node.isTextual() ? node.textValue() : node.toString());
    }
    return values;
  }

  /** RFC 6901: {@code ~} as {@code ~0}, {@code /} as {@code ~1}. */
  private static String escape(String token) {
    return token.replace("~", "~0").replace("/", "~1");
  }
}
