package dev.turnstile.schemas;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@link TopicCatalogue#ALL} is the single source: the topic table of {@code docs/design.md} and
 * the Strimzi manifests under {@code k8s/topics/} must say what it says. Each difference is
 * reported with the topic, the field, both values and the command that regenerates the files
 * ({@link TopicArtifacts#REGENERATE}); that command, {@code -Dturnstile.regenerate=true}, rewrites
 * them instead of checking.
 */
class TopicCatalogueDriftTest {

  private static final Path REPOSITORY = Path.of("..").toAbsolutePath().normalize();
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  @BeforeAll
  static void regenerateWhenAsked() throws IOException {
    if (Boolean.getBoolean("turnstile.regenerate")) {
      TopicArtifacts.regenerate(REPOSITORY);
    }
  }

  @Test
  void theDesignPageTopicTableMatchesTheCatalogue() throws IOException {
    List<String> lines =
        Files.readAllLines(REPOSITORY.resolve(TopicArtifacts.PAGE), StandardCharsets.UTF_8);
    int start = TopicArtifacts.tableStart(lines);
    List<String> table = lines.subList(start, TopicArtifacts.tableEnd(lines, start));

    assertThat(tableDrift(table)).as(howToFix(TopicArtifacts.PAGE)).isEmpty();
  }

  @Test
  void everyTopicManifestMatchesTheCatalogue() throws IOException {
    List<String> drift = new ArrayList<>();
    for (Topic topic : TopicCatalogue.ALL) {
      Path file = TopicArtifacts.manifestPath(REPOSITORY, topic);
      if (!Files.exists(file)) {
        drift.add(topic.baseName() + ": no manifest " + REPOSITORY.relativize(file));
        continue;
      }
      drift.addAll(manifestDrift(topic, YAML.readTree(file.toFile())));
    }
    drift.addAll(manifestsOfNoTopic());
    Path kustomization = TopicArtifacts.kustomizationPath(REPOSITORY);
    if (!Files.exists(kustomization)
        || !Files.readString(kustomization).equals(TopicArtifacts.kustomization())) {
      drift.add("k8s/topics/kustomization.yaml does not list exactly the catalogue's manifests");
    }

    assertThat(drift).as(howToFix("k8s/topics")).isEmpty();
  }

  @Test
  void theDriftCheckNamesTheTopicAndTheField() {
    List<String> table = new ArrayList<>(TopicArtifacts.table());
    table.set(2, table.get(2).replace("| 6 |", "| 12 |"));
    assertThat(tableDrift(table))
        .containsExactly(
            "device-events.raw.v1: column 'partitions' reads '12', catalogue says '6'");

    JsonNode manifest = yaml(TopicArtifacts.manifest(TopicCatalogue.POST_MERGE));
    ((com.fasterxml.jackson.databind.node.ObjectNode) manifest.get("spec").get("config"))
        .put("retention.ms", 1);
    assertThat(manifestDrift(TopicCatalogue.POST_MERGE, manifest))
        .containsExactly(
            "post-merge.v1: spec.config.retention.ms is '1', catalogue says '2592000000'");
  }

  private static String howToFix(String what) {
    return what
        + " drifted from TopicCatalogue.ALL; change the catalogue, not the copy, then regenerate: "
        + TopicArtifacts.REGENERATE;
  }

  /** One message per differing cell, missing row or extra row. */
  static List<String> tableDrift(List<String> table) {
    List<String> drift = new ArrayList<>();
    if (!table.get(0).equals(TopicArtifacts.TABLE_HEADER)) {
      drift.add("header reads '" + table.get(0) + "', expected '" + TopicArtifacts.TABLE_HEADER);
    }
    List<String> columns = cells(TopicArtifacts.TABLE_HEADER);
    Map<String, List<String>> rows = new LinkedHashMap<>();
    for (String line : table.subList(Math.min(2, table.size()), table.size())) {
      List<String> cells = cells(line);
      rows.put(cells.get(0).replace("`", ""), cells);
    }
    for (Topic topic : TopicCatalogue.ALL) {
      List<String> actual = rows.remove(topic.baseName());
      if (actual == null) {
        drift.add(topic.baseName() + ": no row in the table");
        continue;
      }
      List<String> expected = TopicArtifacts.cells(topic);
      for (int i = 1; i < expected.size(); i++) {
        String cell = i < actual.size() ? actual.get(i) : "";
        if (!cell.equals(expected.get(i))) {
          drift.add(
              "%s: column '%s' reads '%s', catalogue says '%s'"
                  .formatted(topic.baseName(), columns.get(i), cell, expected.get(i)));
        }
      }
    }
    rows.keySet().forEach(name -> drift.add(name + ": row for a topic not in the catalogue"));
    return drift;
  }

  private static List<String> cells(String line) {
    String inner = line.strip();
    inner = inner.substring(1, inner.endsWith("|") ? inner.length() - 1 : inner.length());
    return Arrays.stream(inner.split("\\|", -1)).map(String::strip).toList();
  }

  /** One message per field of the manifest that differs from the catalogue. */
  static List<String> manifestDrift(Topic topic, JsonNode manifest) {
    Map<String, Object> expected = new LinkedHashMap<>();
    expected.put("/apiVersion", "kafka.strimzi.io/v1beta2");
    expected.put("/kind", "KafkaTopic");
    expected.put("/spec/topicName", topic.baseName());
    expected.put("/spec/partitions", topic.partitions());
    expected.put("/spec/replicas", topic.replicationFactor());
    expected.put("/spec/config/retention.ms", topic.retentionMs());
    expected.put("/spec/config/cleanup.policy", topic.cleanupPolicy());
    expected.put(
        "/spec/config/min.insync.replicas",
        Topic.minInSyncReplicas(topic.replicationFactor()).isPresent()
            ? Topic.minInSyncReplicas(topic.replicationFactor()).getAsInt()
            : "missing");
    List<String> drift = new ArrayList<>();
    expected.forEach(
        (pointer, value) -> {
          JsonNode actual = manifest.at(pointer);
          String text = actual.isMissingNode() ? "missing" : actual.asText();
          if (!text.equals(String.valueOf(value))) {
            drift.add(
                "%s: %s is '%s', catalogue says '%s'"
                    .formatted(
                        topic.baseName(), pointer.substring(1).replace('/', '.'), text, value));
          }
        });
    return drift;
  }

  private static List<String> manifestsOfNoTopic() throws IOException {
    Path dir = REPOSITORY.resolve("k8s/topics");
    if (!Files.isDirectory(dir)) {
      return List.of();
    }
    Set<String> known =
        TopicCatalogue.ALL.stream().map(t -> t.baseName() + ".yaml").collect(Collectors.toSet());
    try (Stream<Path> files = Files.list(dir)) {
      return files
          .map(f -> f.getFileName().toString())
          .filter(name -> !known.contains(name) && !name.equals("kustomization.yaml"))
          .map(name -> "k8s/topics/" + name + ": manifest of a topic not in the catalogue")
          .toList();
    }
  }

  private static JsonNode yaml(String text) {
    try {
      return YAML.readTree(text);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }
}
