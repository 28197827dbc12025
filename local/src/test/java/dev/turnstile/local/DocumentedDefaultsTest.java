package dev.turnstile.local;

import static org.assertj.core.api.Assertions.assertThat;

import dev.turnstile.bridge.config.BridgeConfigModel;
import dev.turnstile.topology.config.MergeSettings;
import dev.turnstile.topology.config.TopologyConfigModel;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.kafka.common.config.ConfigDef;
import org.junit.jupiter.api.Test;

/**
 * A default is declared once, in a configuration model ({@link BridgeConfigModel}, {@link
 * TopologyConfigModel}); the generated tables of {@code docs/configuration.md} copy it, checked by
 * their own tests. Prose elsewhere may still state it beside the key, so a reader need not leave
 * the page ("[`topology.session.max-duration-ms`](configuration.md#topology) (default 72 h)"): this
 * test reads every such statement in the README, {@code docs/}, {@code k8s/} and {@code config/}
 * and fails when one no longer says the declared default. Forms it reads, after the key (in
 * backticks, linked or bare): {@code (default X}, {@code , default X}, {@code , X by default},
 * {@code at X (the default)}; X a number with an optional unit (ms, s, min, h, d, days, B, KiB,
 * MiB, GiB) or a value in backticks (a word, {@code true}). State a default in one of these forms,
 * or not at all. Not read: the per-entity keys of a template ({@code
 * bridge.servicebus.entity.<name>.*}), whose names are not literal.
 *
 * <p>Values derived from defaults and constants (the merge bound) are checked by name below.
 */
class DocumentedDefaultsTest {

  static final Path REPOSITORY = Path.of("..").toAbsolutePath().normalize();

  private static final String VALUE =
      "(-?[0-9][0-9,]*(?:\\.[0-9]+)?(?: ?(?:ms|s|min|h|hours?|d|days?|B|KiB|MiB|GiB)\\b)?"
          + "|`[^`\\s]+`)";

  /** After the key: the closing backtick and a link, then one of the forms. */
  private static final String AFTER_KEY =
      "`?(?:\\]\\([^)\\s]*\\))?`?(?:\\s*[(,;]\\s*default\\s+"
          + VALUE
          + "|\\s*[(,;]\\s*"
          + VALUE
          + "\\s+by\\s+default|\\s+at\\s+"
          + VALUE
          + "\\s+\\(the\\s+default\\))";

  /** Every declared key of both processes, with its default as {@link ConfigDef} holds it. */
  static Map<String, Object> declaredDefaults() {
    Map<String, Object> defaults = new TreeMap<>();
    for (ConfigDef keys :
        List.of(BridgeConfigModel.MODEL.keys(), TopologyConfigModel.MODEL.keys())) {
      keys.configKeys()
          .forEach(
              (name, key) -> {
                if (key.hasDefault() && key.defaultValue != null) {
                  defaults.put(name, key.defaultValue);
                }
              });
    }
    return defaults;
  }

  /** A default stated in prose: where, for which key, and what it says. */
  record Statement(String where, String key, String stated) {}

  static List<Statement> statements(String where, String text, Map<String, Object> defaults) {
    String keys =
        defaults.keySet().stream()
            .sorted(Comparator.comparingInt(String::length).reversed())
            .map(Pattern::quote)
            .collect(Collectors.joining("|"));
    Pattern pattern =
        Pattern.compile("(?<![A-Za-z0-9._-])(" + keys + ")(?![A-Za-z0-9._-])" + AFTER_KEY);
    List<Statement> found = new ArrayList<>();
    Matcher m = pattern.matcher(text);
    while (m.find()) {
      String stated =
          m.group(2) != null ? m.group(2) : m.group(3) != null ? m.group(3) : m.group(4);
      int line = (int) text.substring(0, m.start()).chars().filter(c -> c == '\n').count() + 1;
      found.add(new Statement(where + ":" + line, m.group(1), stated));
    }
    return found;
  }

  /** Whether {@code stated} ("72 h", "1,000", "64 KiB", "`lz4`") says {@code declared}. */
  static boolean says(String stated, Object declared) {
    if (stated.startsWith("`")) {
      return stated.substring(1, stated.length() - 1).equals(String.valueOf(declared));
    }
    Matcher m = Pattern.compile("(-?[0-9][0-9,]*(?:\\.[0-9]+)?) ?(\\w*)").matcher(stated);
    if (!m.matches() || !(declared instanceof Number number)) {
      return false;
    }
    BigDecimal value = new BigDecimal(m.group(1).replace(",", ""));
    long unit =
        switch (m.group(2)) {
          case "", "ms", "B" -> 1;
          case "s" -> 1_000;
          case "min" -> 60_000;
          case "h", "hour", "hours" -> 3_600_000;
          case "d", "day", "days" -> 86_400_000;
          case "KiB" -> 1L << 10;
          case "MiB" -> 1L << 20;
          case "GiB" -> 1L << 30;
          default -> throw new IllegalArgumentException("no unit " + m.group(2));
        };
    return value.multiply(BigDecimal.valueOf(unit)).compareTo(new BigDecimal(number.toString()))
        == 0;
  }

  private static List<Path> pages() throws IOException {
    List<Path> pages = new ArrayList<>(List.of(REPOSITORY.resolve("README.md")));
    for (String folder : List.of("docs", "k8s", "config")) {
      try (Stream<Path> files = Files.walk(REPOSITORY.resolve(folder))) {
        files
            .filter(f -> f.toString().matches(".*\\.(md|ya?ml|properties)$"))
            .sorted()
            .forEach(pages::add);
      }
    }
    return pages;
  }

  @Test
  void everyDefaultStatedBesideItsKeyIsTheDeclaredOne() throws IOException {
    Map<String, Object> defaults = declaredDefaults();
    List<Statement> statements = new ArrayList<>();
    for (Path page : pages()) {
      statements.addAll(
          statements(REPOSITORY.relativize(page).toString(), Files.readString(page), defaults));
    }
    // The check reads what it should: design.md alone states five defaults beside their keys.
    assertThat(statements)
        .as("defaults stated beside their keys")
        .filteredOn(s -> s.where().startsWith("docs/design.md"))
        .hasSizeGreaterThanOrEqualTo(5);
    assertThat(statements)
        .as("defaults stated in prose that are not the declared ones")
        .filteredOn(s -> !says(s.stated(), defaults.get(s.key())))
        .extracting(
            s ->
                "%s: %s says %s, declared %s"
                    .formatted(s.where(), s.key(), s.stated(), defaults.get(s.key())))
        .isEmpty();
  }

  @Test
  void aStatedDefaultThatDriftedIsFound() {
    Map<String, Object> defaults = declaredDefaults();
    String text =
        "expire after [`topology.session.max-duration-ms`](configuration.md#topology) (default 8"
            + " h);\nthe port (`bridge.http.port`, default 8080) and `topology.merge.max-patches`,"
            + " 12 by default; at\n`topology.num-standby-replicas` at 2 (the default)";
    List<Statement> found = statements("example.md", text, defaults);

    assertThat(found)
        .extracting(Statement::key, Statement::stated)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("topology.session.max-duration-ms", "8 h"),
            org.assertj.core.groups.Tuple.tuple("bridge.http.port", "8080"),
            org.assertj.core.groups.Tuple.tuple("topology.merge.max-patches", "12"),
            org.assertj.core.groups.Tuple.tuple("topology.num-standby-replicas", "2"));
    assertThat(found)
        .filteredOn(s -> !says(s.stated(), defaults.get(s.key())))
        .extracting(Statement::key)
        .containsExactly("topology.session.max-duration-ms", "topology.num-standby-replicas");
    assertThat(says("72 h", 259_200_000L)).isTrue();
    assertThat(says("3 days", 259_200_000L)).isTrue();
    assertThat(says("64 KiB", 65_536)).isTrue();
    assertThat(says("1,000", 1000)).isTrue();
    assertThat(says("-1", -1)).isTrue();
    assertThat(says("`true`", true)).isTrue();
    assertThat(says("`lz4`", "lz4")).isTrue();
    assertThat(says("`zstd`", "lz4")).isFalse();
  }

  @Test
  void theMergeBoundOnTheDesignPageIsTheCodes() throws IOException {
    String design = Files.readString(REPOSITORY.resolve("docs/design.md"));
    Map<String, Object> defaults = declaredDefaults();
    int patches = ((Number) defaults.get("topology.merge.max-patches")).intValue();
    int documentBytes = ((Number) defaults.get("topology.merge.max-document-bytes")).intValue();
    int stateKiB = MergeSettings.MAX_STORED_STATE_BYTES / 1024;

    Matcher product =
        Pattern.compile("by\\s+default\\s+(\\d+)\\s+×\\s+(\\d+)\\s+KiB\\s+=\\s+(\\d+)\\s+KiB")
            .matcher(design);
    assertThat(product.find()).as("design.md states the default merge bound").isTrue();
    assertThat(List.of(product.group(1), product.group(2), product.group(3)))
        .as("(max-patches + 1) × max-document-bytes by default, on design.md")
        .containsExactly(
            String.valueOf(patches + 1),
            String.valueOf(documentBytes / 1024),
            String.valueOf((patches + 1) * documentBytes / 1024));

    Matcher stored =
        Pattern.compile("(\\d+)\\s+KiB\\s+\\(else\\s+`MERGE_STATE_FULL`").matcher(design);
    assertThat(stored.find()).as("design.md states the stored-state bound").isTrue();
    assertThat(stored.group(1)).isEqualTo(String.valueOf(stateKiB));
    Matcher reason = Pattern.compile("would\\s+pass\\s+(\\d+)\\s+KiB").matcher(design);
    assertThat(reason.find()).as("design.md's MERGE_STATE_FULL row states the bound").isTrue();
    assertThat(reason.group(1)).isEqualTo(String.valueOf(stateKiB));
  }
}
