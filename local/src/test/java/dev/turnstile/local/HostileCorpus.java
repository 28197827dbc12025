package dev.turnstile.local;

import com.fasterxml.jackson.databind.JsonNode;
import dev.turnstile.schemas.Json;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The hostile-input corpus kept under {@code src/test/resources/hostile-corpus/}: one JSON Lines
 * file per category, one entry per line (format in that folder's README). Entries are templates:
 * {@link #render} fills the placeholders per run so that a second pass sends new ids (dedup would
 * otherwise drop it silently) and expands the repetition macros that keep deep and large inputs
 * short on disk.
 */
final class HostileCorpus {

  /** The categories, in the order they run; each is a file {@code <category>.jsonl}. */
  enum Category {
    HTTP_BODIES("http-bodies"),
    HTTP_PATHS("http-paths"),
    HTTP_HEADERS("http-headers"),
    SERVICEBUS_BODIES("servicebus-bodies"),
    SERVICEBUS_PROPERTIES("servicebus-properties"),
    SERVICEBUS_CONTENT_TYPES("servicebus-content-types"),
    RAW_KAFKA_RECORDS("raw-kafka-records");

    final String file;

    Category(String file) {
      this.file = file;
    }

    boolean http() {
      return file.startsWith("http-");
    }

    boolean serviceBus() {
      return file.startsWith("servicebus-");
    }
  }

  /**
   * One hostile input.
   *
   * @param spec the category's input object ({@code request}, {@code message} or {@code record})
   * @param before inputs to send first (HTTP bodies only), each expected to be accepted
   * @param expect the expected answer
   */
  record Entry(
      Category category,
      int index,
      String name,
      String why,
      JsonNode spec,
      List<JsonNode> before,
      JsonNode expect) {

    String label() {
      return category.file + "/" + name;
    }
  }

  private static final String FOLDER = "hostile-corpus/";

  private HostileCorpus() {}

  static Map<Category, List<Entry>> load() {
    Map<Category, List<Entry>> corpus = new LinkedHashMap<>();
    for (Category category : Category.values()) {
      corpus.put(category, load(category));
    }
    return corpus;
  }

  private static List<Entry> load(Category category) {
    String resource = FOLDER + category.file + ".jsonl";
    List<Entry> entries = new ArrayList<>();
    try (InputStream in = HostileCorpus.class.getClassLoader().getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException("missing corpus file " + resource);
      }
      String[] lines = new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n");
      for (String line : lines) {
        if (line.isBlank()) {
          continue;
        }
        JsonNode node = Json.mapper().readTree(line);
        String input = category.http() ? "request" : category.serviceBus() ? "message" : "record";
        List<JsonNode> before = new ArrayList<>();
        node.path("before").forEach(before::add);
        entries.add(
            new Entry(
                category,
                entries.size(),
                require(node, "name").asText(),
                node.path("why").asText(),
                require(node, input),
                before,
                require(node, "expect")));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + resource, e);
    }
    return entries;
  }

  private static JsonNode require(JsonNode node, String field) {
    JsonNode value = node.get(field);
    if (value == null || value.isNull()) {
      throw new IllegalStateException("corpus entry without \"" + field + "\": " + node);
    }
    return value;
  }

  /**
   * Fills {@code {{name}}} placeholders from {@code values}, then expands {@code ⟦N*text⟧} to
   * {@code text} repeated N times (text may not contain {@code ⟧}).
   */
  static String render(String template, Map<String, String> values) {
    String text = template;
    for (Map.Entry<String, String> value : values.entrySet()) {
      text = text.replace("{{" + value.getKey() + "}}", value.getValue());
    }
    StringBuilder out = new StringBuilder(text.length());
    int at = 0;
    while (true) {
      int open = text.indexOf('⟦', at);
      if (open < 0) {
        out.append(text, at, text.length());
        return out.toString();
      }
      int star = text.indexOf('*', open);
      int close = text.indexOf('⟧', open);
      if (star < 0 || close < star) {
        // Not a repetition (e.g. the chunked marker): kept for the caller.
        out.append(text, at, close + 1);
        at = close + 1;
        continue;
      }
      out.append(text, at, open);
      out.append(
          text.substring(star + 1, close).repeat(Integer.parseInt(text.substring(open + 1, star))));
      at = close + 1;
    }
  }
}
