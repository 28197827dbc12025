package dev.turnstile.topology.generation;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.JsonNodeFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.MissingNode;
import com.fasterxml.jackson.databind.node.TextNode;
import com.flipkart.zjsonpatch.DiffFlags;
import com.flipkart.zjsonpatch.JsonDiff;
import dev.turnstile.schemas.Generation;
import dev.turnstile.schemas.Sha256;
import java.io.IOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * {@code turnstile generation diff OLD NEW}: reads both generations' output topics under {@code
 * read_committed} and says, per topic, which records are equal, which differ (and at which JSON
 * pointers, RFC 6901), and which exist in one generation only. What identifies a record and what is
 * compared is each topic's {@link OutputView}.
 *
 * <p>Two passes, so memory holds a digest per identity, not the topics: the first reads both
 * generations and compares digests (for {@link OutputView.Records#EVERY} an order-independent sum
 * of the records' SHA-256, for {@link OutputView.Records#LAST} the last record's); the second reads
 * the values of at most {@link #MAX_DETAILED} differing identities per topic, for their pointers.
 */
public final class GenerationDiff {

  /** Differing identities per topic whose values are read again to name the differing fields. */
  public static final int MAX_DETAILED = 10_000;

  /** Sorted properties, so that equal JSON documents have equal bytes and equal digests. */
  private static final ObjectMapper CANONICAL =
      JsonMapper.builder().enable(JsonNodeFeature.WRITE_PROPERTIES_SORTED).build();

  private static final BigInteger MODULUS = BigInteger.ONE.shiftLeft(256);

  /**
   * One field that differs between the two generations' records of an identity.
   *
   * @param pointer where, as a JSON pointer into the record's value
   * @param before the old generation's value there, {@link MissingNode} when it had none
   * @param after the new generation's value there, {@link MissingNode} when it has none
   */
  public record Change(String pointer, JsonNode before, JsonNode after) {}

  /**
   * An identity whose records differ.
   *
   * @param changes the differing fields; empty when the records were not read again (more than
   *     {@link #MAX_DETAILED} differ)
   */
  public record Difference(String identity, List<Change> changes) {}

  /**
   * One topic compared.
   *
   * @param pointers how many differing identities differ at each pointer (of those detailed)
   */
  public record TopicDiff(
      OutputView view,
      String oldTopic,
      String newTopic,
      long equal,
      List<Difference> differing,
      List<String> onlyInOld,
      List<String> onlyInNew,
      Map<String, Long> pointers) {

    public boolean allEqual() {
      return differing.isEmpty() && onlyInOld.isEmpty() && onlyInNew.isEmpty();
    }
  }

  /** Both generations' outputs, topic by topic. */
  public record Report(Generation older, Generation newer, List<TopicDiff> topics) {

    public boolean allEqual() {
      return topics.stream().allMatch(TopicDiff::allEqual);
    }

    /** The topic diff of {@code view}. */
    public TopicDiff topic(OutputView view) {
      return topics.stream().filter(t -> t.view() == view).findFirst().orElseThrow();
    }
  }

  private GenerationDiff() {}

  /**
   * Compares every output topic of {@code older} and {@code newer}.
   *
   * @param client Kafka client settings ({@code bootstrap.servers}, security)
   * @param prefix the deployment's {@code topic.prefix}
   * @throws TimeoutException when a topic cannot be read to its end within {@code timeout}
   */
  public static Report compare(
      Map<String, Object> client,
      String prefix,
      Generation older,
      Generation newer,
      Duration timeout)
      throws TimeoutException {
    List<TopicDiff> topics = new ArrayList<>();
    for (OutputView view : OutputView.all()) {
      topics.add(
          compare(
              client,
              view,
              older.topicName(view.topic(), prefix),
              newer.topicName(view.topic(), prefix),
              timeout));
    }
    return new Report(older, newer, topics);
  }

  private static TopicDiff compare(
      Map<String, Object> client,
      OutputView view,
      String oldTopic,
      String newTopic,
      Duration timeout)
      throws TimeoutException {
    Map<String, BigInteger> before = digests(client, view, oldTopic, timeout);
    Map<String, BigInteger> after = digests(client, view, newTopic, timeout);
    long equal = 0;
    Set<String> differing = new TreeSet<>();
    List<String> onlyInOld = new ArrayList<>();
    for (Map.Entry<String, BigInteger> entry : before.entrySet()) {
      BigInteger other = after.get(entry.getKey());
      if (other == null) {
        onlyInOld.add(entry.getKey());
      } else if (other.equals(entry.getValue())) {
        equal++;
      } else {
        differing.add(entry.getKey());
      }
    }
    List<String> onlyInNew =
        after.keySet().stream().filter(identity -> !before.containsKey(identity)).toList();
    List<Difference> differences = details(client, view, oldTopic, newTopic, differing, timeout);
    Map<String, Long> pointers = new TreeMap<>();
    differences.forEach(
        d ->
            d.changes().stream()
                .map(Change::pointer)
                .distinct()
                .forEach(p -> pointers.merge(p, 1L, Long::sum)));
    return new TopicDiff(
        view,
        oldTopic,
        newTopic,
        equal,
        differences,
        onlyInOld.stream().sorted().toList(),
        onlyInNew.stream().sorted().toList(),
        pointers);
  }

  /** Per identity: the sum of its records' digests (every record) or its last record's digest. */
  private static Map<String, BigInteger> digests(
      Map<String, Object> client, OutputView view, String topic, Duration timeout)
      throws TimeoutException {
    Map<String, BigInteger> digests = new HashMap<>();
    TopicScan.scan(
        client,
        topic,
        timeout,
        record -> {
          JsonNode value = view.comparable(json(record));
          String identity = view.identity(record.key(), value);
          BigInteger digest = new BigInteger(1, Sha256.digest(canonical(value)));
          if (view.records() == OutputView.Records.EVERY) {
            digests.merge(identity, digest, (a, b) -> a.add(b).mod(MODULUS));
          } else {
            digests.put(identity, digest);
          }
        });
    return digests;
  }

  /** Reads the values of (at most {@link #MAX_DETAILED}) differing identities and compares them. */
  private static List<Difference> details(
      Map<String, Object> client,
      OutputView view,
      String oldTopic,
      String newTopic,
      Set<String> differing,
      Duration timeout)
      throws TimeoutException {
    Set<String> detailed = new HashSet<>();
    differing.stream().limit(MAX_DETAILED).forEach(detailed::add);
    Map<String, List<JsonNode>> before = values(client, view, oldTopic, detailed, timeout);
    Map<String, List<JsonNode>> after = values(client, view, newTopic, detailed, timeout);
    List<Difference> differences = new ArrayList<>();
    for (String identity : differing) {
      differences.add(
          new Difference(
              identity,
              detailed.contains(identity)
                  ? changes(view, before.get(identity), after.get(identity))
                  : List.of()));
    }
    return differences;
  }

  private static Map<String, List<JsonNode>> values(
      Map<String, Object> client,
      OutputView view,
      String topic,
      Set<String> identities,
      Duration timeout)
      throws TimeoutException {
    Map<String, List<JsonNode>> values = new LinkedHashMap<>();
    if (identities.isEmpty()) {
      return values;
    }
    TopicScan.scan(
        client,
        topic,
        timeout,
        record -> {
          JsonNode value = view.comparable(json(record));
          String identity = view.identity(record.key(), value);
          if (identities.contains(identity)) {
            List<JsonNode> list = values.computeIfAbsent(identity, i -> new ArrayList<>());
            if (view.records() == OutputView.Records.LAST) {
              list.clear();
            }
            list.add(value);
          }
        });
    return values;
  }

  /**
   * Where two identities' records differ. With one record on each side (always so for {@link
   * OutputView.Records#LAST}), the RFC 6902 diff between them; with several, the records both have
   * are set aside first, and a remaining pair is compared the same way; a count that differs is a
   * change at {@code ""} (the whole record).
   */
  static List<Change> changes(OutputView view, List<JsonNode> before, List<JsonNode> after) {
    List<JsonNode> left = new ArrayList<>(before);
    List<JsonNode> right = new ArrayList<>(after);
    for (JsonNode node : before) {
      if (right.remove(node)) {
        left.remove(node);
      }
    }
    if (left.size() == 1 && right.size() == 1) {
      return patchChanges(left.get(0), right.get(0));
    }
    return List.of(
        new Change(
            "",
            new TextNode(left.size() + " record(s): " + left),
            new TextNode(right.size() + " record(s): " + right)));
  }

  private static List<Change> patchChanges(JsonNode before, JsonNode after) {
    List<Change> changes = new ArrayList<>();
    JsonNode patch =
        JsonDiff.asJson(
            before,
            after,
            EnumSet.of(
                DiffFlags.OMIT_MOVE_OPERATION,
                DiffFlags.OMIT_COPY_OPERATION,
                DiffFlags.ADD_ORIGINAL_VALUE_ON_REPLACE));
    for (JsonNode operation : patch) {
      String path = operation.path("path").asText();
      String op = operation.path("op").asText();
      JsonNode old =
          op.equals("add")
              ? MissingNode.getInstance()
              : op.equals("replace") ? operation.path("fromValue") : before.at(path);
      JsonNode now = op.equals("remove") ? MissingNode.getInstance() : operation.path("value");
      changes.add(new Change(path, old, now));
    }
    return changes;
  }

  private static JsonNode json(ConsumerRecord<String, byte[]> record) {
    if (record.value() == null) {
      return MissingNode.getInstance();
    }
    try {
      return CANONICAL.readTree(record.value());
    } catch (IOException notJson) {
      return new TextNode(Base64.getEncoder().encodeToString(record.value()));
    }
  }

  private static byte[] canonical(JsonNode value) {
    try {
      return CANONICAL.writeValueAsString(value).getBytes(StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new IllegalStateException("a JSON tree always serialises", e);
    }
  }
}
