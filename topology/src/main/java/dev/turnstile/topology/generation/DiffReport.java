package dev.turnstile.topology.generation;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.turnstile.schemas.Json;
import dev.turnstile.topology.generation.GenerationDiff.Change;
import dev.turnstile.topology.generation.GenerationDiff.Difference;
import dev.turnstile.topology.generation.GenerationDiff.Report;
import dev.turnstile.topology.generation.GenerationDiff.TopicDiff;
import java.io.PrintWriter;
import java.util.List;
import java.util.stream.Collectors;

/** A {@link Report} as {@code turnstile generation diff} prints it, and as JSON. */
public final class DiffReport {

  private DiffReport() {}

  /** The report for a person: per topic the counts, the differing pointers and examples. */
  public static void print(Report report, PrintWriter out, int examples) {
    String older = report.older().toString();
    String newer = report.newer().toString();
    out.printf(
        "Generation %s against %s: every output topic read_committed from its earliest retained"
            + " offset (docs/changing-a-rule.md, \"What diff compares\")%n",
        older, newer);
    for (TopicDiff topic : report.topics()) {
      out.println();
      out.printf(
          "%s (%s: %s, %s: %s), a record per %s%n",
          topic.view().topic().baseName(),
          older,
          topic.oldTopic(),
          newer,
          topic.newTopic(),
          topic.view().records() == OutputView.Records.EVERY ? "identity, every one" : "key, last");
      out.printf(
          "  equal %,d   differing %,d   only in %s %,d   only in %s %,d%n",
          topic.equal(),
          topic.differing().size(),
          older,
          topic.onlyInOld().size(),
          newer,
          topic.onlyInNew().size());
      if (!topic.pointers().isEmpty()) {
        out.println(
            "  differing fields: "
                + topic.pointers().entrySet().stream()
                    .map(
                        e ->
                            (e.getKey().isEmpty() ? "(whole record)" : e.getKey())
                                + " "
                                + e.getValue())
                    .collect(Collectors.joining(", ")));
      }
      for (Difference difference : topic.differing().stream().limit(examples).toList()) {
        out.println("  differs: " + difference.identity());
        for (Change change : difference.changes()) {
          out.printf(
              "    %s: %s -> %s%n",
              change.pointer().isEmpty() ? "(whole record)" : change.pointer(),
              shown(change.before()),
              shown(change.after()));
        }
      }
      examples(out, "only in " + older, topic.onlyInOld(), examples);
      examples(out, "only in " + newer, topic.onlyInNew(), examples);
    }
    out.println();
    long differ = report.topics().stream().filter(t -> !t.allEqual()).count();
    out.println(
        report.allEqual()
            ? "ALL EQUAL: every compared record is the same in " + older + " and " + newer
            : "DIFFERENT: " + differ + " of " + report.topics().size() + " topics differ");
    out.flush();
  }

  private static void examples(PrintWriter out, String what, List<String> ids, int examples) {
    ids.stream().limit(examples).forEach(id -> out.println("  " + what + ": " + id));
    if (ids.size() > examples) {
      out.printf("  ... %,d more %s%n", ids.size() - examples, what);
    }
  }

  private static String shown(JsonNode value) {
    if (value == null || value.isMissingNode()) {
      return "(absent)";
    }
    String text = value.toString();
    return text.length() > 200 ? text.substring(0, 200) + "..." : text;
  }

  /** Everything the report holds, every identity included. */
  public static ObjectNode json(Report report) {
    ObjectNode json = Json.mapper().createObjectNode();
    json.put("old", report.older().toString());
    json.put("new", report.newer().toString());
    json.put("allEqual", report.allEqual());
    ArrayNode topics = json.putArray("topics");
    for (TopicDiff topic : report.topics()) {
      ObjectNode t = topics.addObject();
      t.put("topic", topic.view().topic().baseName());
      t.put("oldTopic", topic.oldTopic());
      t.put("newTopic", topic.newTopic());
      t.put("equal", topic.equal());
      ObjectNode pointers = t.putObject("differingFields");
      topic.pointers().forEach(pointers::put);
      ArrayNode differing = t.putArray("differing");
      for (Difference difference : topic.differing()) {
        ObjectNode d = differing.addObject();
        d.put("identity", difference.identity());
        ArrayNode changes = d.putArray("changes");
        for (Change change : difference.changes()) {
          ObjectNode c = changes.addObject();
          c.put("pointer", change.pointer());
          if (!change.before().isMissingNode()) {
            c.set("old", change.before());
          }
          if (!change.after().isMissingNode()) {
            c.set("new", change.after());
          }
        }
      }
      topic.onlyInOld().forEach(t.putArray("onlyInOld")::add);
      topic.onlyInNew().forEach(t.putArray("onlyInNew")::add);
    }
    return json;
  }
}
