package dev.turnstile.topology.generation;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.turnstile.schemas.Topic;
import dev.turnstile.schemas.TopicCatalogue;
import java.util.List;
import java.util.Set;
import java.util.function.BiFunction;
import java.util.function.UnaryOperator;

/**
 * How {@code generation diff} compares one output topic of two generations, declared once: what
 * identifies a record across generations, which of a key's records are compared, and which fields
 * are not compared and why. The table of docs/changing-a-rule.md ("What diff compares") is
 * generated from these declarations. Nothing else is left out: record timestamps and headers are
 * never compared (the {@code ce_time} of an expiry or a rejection is a processing time; the other
 * {@code ce_*} attributes are derived from the value), and every field of every value is, except
 * those named here.
 */
public enum OutputView {
  DEVICE_SESSIONS(
      TopicCatalogue.DEVICE_SESSIONS,
      "`/deviceId`, `/sessionRef`, `/sessionId`",
      Records.EVERY,
      (key, value) ->
          value.path("deviceId").asText()
              + " "
              + value.path("sessionRef").asText("-")
              + " "
              + value.path("sessionId").asText(),
      UnaryOperator.identity(),
      "nothing"),

  REJECTED_EVENTS(
      TopicCatalogue.REJECTED_EVENTS,
      "`/stage`, the record key, `/eventId` (else the source coordinates)",
      Records.EVERY,
      (key, value) ->
          value.path("stage").asText()
              + " "
              + key
              + " "
              + (value.hasNonNull("eventId")
                  ? value.path("eventId").asText()
                  : value.path("sourceTopic").asText()
                      + "/"
                      + value.path("sourcePartition").asText()
                      + "/"
                      + value.path("sourceOffset").asText()),
      OutputView::withoutProcessingTime,
      "`/rejectedAt`, the wall-clock time of the rejection. `/sourceTopic` is compared by its"
          + " catalogue name, since a generation's own topics carry its name. `/sourceOffset` of a"
          + " rejection read from `merge-inputs.v1` or `merge-results.v1`: a generation writes"
          + " those itself, from two paths (sessions, Service Bus) whose interleaving depends on"
          + " arrival order, so the same record sits at another offset in each generation"),

  MERGE_INPUTS(
      TopicCatalogue.MERGE_INPUTS,
      "`/mergeKey`, `/patch/source`, `/patch/eventId`",
      Records.EVERY,
      (key, value) ->
          value.path("mergeKey").asText()
              + " "
              + value.path("patch").path("source").asText()
              + " "
              + value.path("patch").path("eventId").asText(),
      UnaryOperator.identity(),
      "nothing"),

  MERGE_RESULTS(
      TopicCatalogue.MERGE_RESULTS,
      "the record key (the merge key)",
      Records.LAST,
      (key, value) -> key,
      UnaryOperator.identity(),
      "a key's earlier results: how many there are and in which order depends on the order in"
          + " which the session and Service Bus paths reach the merge (arrival order across two"
          + " paths), while the last one does not (the merge is order-independent)"),

  POST_MERGE(
      TopicCatalogue.POST_MERGE,
      "the record key (the merge key)",
      Records.LAST,
      (key, value) -> key,
      UnaryOperator.identity(),
      "a key's earlier records, as for `merge-results.v1`: a complete document is emitted once"
          + " per distinct content, and which intermediate contents occur depends on arrival"
          + " order");

  /** Which of one identity's records are compared. */
  public enum Records {
    /** Every record, as a multiset: a duplicate or a missing one is a difference. */
    EVERY,
    /** The last record in the partition: what a reader keeping the latest per key holds. */
    LAST
  }

  /** Topics a generation writes and reads again itself: offsets there depend on arrival order. */
  private static final Set<String> HOPS =
      Set.of(TopicCatalogue.MERGE_INPUTS.baseName(), TopicCatalogue.MERGE_RESULTS.baseName());

  private final Topic topic;
  private final String identityDoc;
  private final Records records;
  private final BiFunction<String, JsonNode, String> identity;
  private final UnaryOperator<JsonNode> comparable;
  private final String notCompared;

  OutputView(
      Topic topic,
      String identityDoc,
      Records records,
      BiFunction<String, JsonNode, String> identity,
      UnaryOperator<JsonNode> comparable,
      String notCompared) {
    this.topic = topic;
    this.identityDoc = identityDoc;
    this.records = records;
    this.identity = identity;
    this.comparable = comparable;
    this.notCompared = notCompared;
  }

  public Topic topic() {
    return topic;
  }

  public Records records() {
    return records;
  }

  /** What identifies the record {@code value} with key {@code key} across generations. */
  public String identity(String key, JsonNode value) {
    return identity.apply(key, value);
  }

  /** The part of {@code value} that is compared, as the view declares; a copy when it differs. */
  public JsonNode comparable(JsonNode value) {
    return comparable.apply(value);
  }

  /** Every view, one per topic a generation writes (a test holds them to the catalogue). */
  public static List<OutputView> all() {
    return List.of(values());
  }

  private static JsonNode withoutProcessingTime(JsonNode value) {
    if (!(value instanceof ObjectNode object)) {
      return value;
    }
    ObjectNode copy = object.deepCopy();
    copy.remove("rejectedAt");
    String source = copy.path("sourceTopic").asText(null);
    if (source != null) {
      String base = baseName(source);
      copy.put("sourceTopic", base);
      if (HOPS.contains(base)) {
        copy.remove("sourceOffset");
      }
    }
    return copy;
  }

  /** The catalogue name of a full topic name, whatever deployment prefix and generation. */
  static String baseName(String fullName) {
    for (Topic catalogued : TopicCatalogue.ALL) {
      if (fullName.endsWith(catalogued.baseName())) {
        return catalogued.baseName();
      }
    }
    return fullName;
  }

  /** The table of docs/changing-a-rule.md: each topic, what identifies a record, what is left. */
  public static String markdown() {
    StringBuilder table = new StringBuilder();
    table.append("| topic | a record is identified by | compared | not compared, and why |\n");
    table.append("| --- | --- | --- | --- |\n");
    for (OutputView view : values()) {
      table
          .append("| `")
          .append(view.topic.baseName())
          .append("` | ")
          .append(view.identityDoc)
          .append(" | ")
          .append(
              view.records == Records.EVERY
                  ? "every record (duplicates and missing ones count)"
                  : "the last record of each key")
          .append(" | ")
          .append(view.notCompared)
          .append(" |\n");
    }
    return table.toString();
  }
}
