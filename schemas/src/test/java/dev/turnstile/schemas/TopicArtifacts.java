package dev.turnstile.schemas;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * What the topic catalogue generates: the "## Topics" table of {@code docs/design.md} and one
 * Strimzi {@code KafkaTopic} manifest per topic under {@code k8s/topics/}. {@link
 * TopicCatalogueDriftTest} checks both against {@link TopicCatalogue#ALL} and rewrites them when
 * asked to (see {@link #REGENERATE}).
 */
final class TopicArtifacts {

  static final String REGENERATE =
      "./mvnw -B -q test -pl schemas -Dtest=TopicCatalogueDriftTest -Dturnstile.regenerate=true";
  static final String PAGE = "docs/design.md";
  static final String SECTION = "## Topics";
  static final String TABLE_HEADER =
      "| topic | partitions | key | value schema | retention | cleanup | written by |";
  static final String STRIMZI_CLUSTER = "turnstile";

  private TopicArtifacts() {}

  /** The page's topic table, header and separator included, one row per catalogued topic. */
  static List<String> table() {
    List<String> lines = new ArrayList<>();
    lines.add(TABLE_HEADER);
    lines.add("| --- | --- | --- | --- | --- | --- | --- |");
    for (Topic topic : TopicCatalogue.ALL) {
      lines.add("| " + String.join(" | ", cells(topic)) + " |");
    }
    return lines;
  }

  /** The row's cells in {@link #TABLE_HEADER} order. */
  static List<String> cells(Topic topic) {
    return List.of(
        "`" + topic.baseName() + "`",
        Integer.toString(topic.partitions()),
        topic.key(),
        topic.valueSchema() == null
            ? "none: the body as sent"
            : "`" + topic.valueSchemaName() + "`",
        retention(topic.retention()),
        topic.cleanupPolicy(),
        topic.writtenBy());
  }

  static String retention(Duration retention) {
    if (retention == null) {
      return "forever";
    }
    return retention.toDays() * Duration.ofDays(1).toMillis() == retention.toMillis()
        ? retention.toDays() + " d"
        : retention.toMillis() + " ms";
  }

  static Path manifestPath(Path repository, Topic topic) {
    return repository.resolve("k8s/topics/" + topic.baseName() + ".yaml");
  }

  /** A Strimzi {@code KafkaTopic} for the topic, without prefix. */
  static String manifest(Topic topic) {
    return """
        # Generated from TopicCatalogue.java; do not edit. Regenerate with:
        # %s
        apiVersion: kafka.strimzi.io/v1beta2
        kind: KafkaTopic
        metadata:
          name: %s
          labels:
            strimzi.io/cluster: %s
        spec:
          topicName: %s
          partitions: %d
          replicas: %d
          config:
            retention.ms: %d
            cleanup.policy: %s
        %s"""
        .formatted(
            REGENERATE,
            topic.baseName(),
            STRIMZI_CLUSTER,
            topic.baseName(),
            topic.partitions(),
            topic.replicationFactor(),
            topic.retentionMs(),
            topic.cleanupPolicy(),
            Topic.minInSyncReplicas(topic.replicationFactor()).isPresent()
                ? "    min.insync.replicas: "
                    + Topic.minInSyncReplicas(topic.replicationFactor()).getAsInt()
                    + "\n"
                : "");
  }

  static Path kustomizationPath(Path repository) {
    return repository.resolve("k8s/topics/kustomization.yaml");
  }

  /** The kustomization that lists every manifest, so {@code kubectl kustomize k8s/topics} works. */
  static String kustomization() {
    StringBuilder text =
        new StringBuilder(
            """
            # Generated from TopicCatalogue.java; do not edit. Regenerate with:
            # %s
            apiVersion: kustomize.config.k8s.io/v1beta1
            kind: Kustomization
            resources:
            """
                .formatted(REGENERATE));
    for (Topic topic : TopicCatalogue.ALL) {
      text.append("  - ").append(topic.baseName()).append(".yaml\n");
    }
    return text.toString();
  }

  /** Rewrites the page's table and every manifest from the catalogue. */
  static void regenerate(Path repository) throws IOException {
    Path page = repository.resolve(PAGE);
    List<String> lines = Files.readAllLines(page, StandardCharsets.UTF_8);
    int start = tableStart(lines);
    int end = tableEnd(lines, start);
    List<String> updated = new ArrayList<>(lines.subList(0, start));
    updated.addAll(table());
    updated.addAll(lines.subList(end, lines.size()));
    Files.write(page, updated, StandardCharsets.UTF_8);
    for (Topic topic : TopicCatalogue.ALL) {
      Path file = manifestPath(repository, topic);
      Files.createDirectories(file.getParent());
      Files.writeString(file, manifest(topic), StandardCharsets.UTF_8);
    }
    Files.writeString(kustomizationPath(repository), kustomization(), StandardCharsets.UTF_8);
  }

  /** Index of the table's first line: the first table line after the "## Topics" heading. */
  static int tableStart(List<String> lines) {
    int heading = lines.indexOf(SECTION);
    if (heading < 0) {
      throw new IllegalStateException(PAGE + " has no '" + SECTION + "' section");
    }
    for (int i = heading + 1; i < lines.size() && !lines.get(i).startsWith("## "); i++) {
      if (lines.get(i).startsWith("|")) {
        return i;
      }
    }
    throw new IllegalStateException(PAGE + "'s '" + SECTION + "' section has no table");
  }

  /** Index just past the table that starts at {@code start}. */
  static int tableEnd(List<String> lines, int start) {
    int end = start;
    while (end < lines.size() && lines.get(end).startsWith("|")) {
      end++;
    }
    return end;
  }
}
