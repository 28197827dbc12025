package dev.turnstile.runtime.config;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A generated block of a Markdown page (the configuration tables of {@code docs/configuration.md})
 * between {@code <!-- generated: NAME -->} and {@code <!-- end: NAME -->}: read for drift tests,
 * rewritten on request.
 */
public final class GeneratedBlock {

  private GeneratedBlock() {}

  public static String start(String name) {
    return "<!-- generated: " + name + " (do not edit; see ConfigDocs) -->";
  }

  public static String end(String name) {
    return "<!-- end: " + name + " -->";
  }

  /** The block's lines in {@code page}, markers excluded. */
  public static List<String> read(Path page, String name) throws IOException {
    List<String> lines = Files.readAllLines(page, StandardCharsets.UTF_8);
    int[] range = range(page, lines, name);
    return new ArrayList<>(lines.subList(range[0] + 1, range[1]));
  }

  /** Replaces the block's lines in {@code page} with {@code content}. */
  public static void write(Path page, String name, List<String> content) throws IOException {
    List<String> lines = Files.readAllLines(page, StandardCharsets.UTF_8);
    int[] range = range(page, lines, name);
    List<String> updated = new ArrayList<>(lines.subList(0, range[0] + 1));
    updated.addAll(content);
    updated.addAll(lines.subList(range[1], lines.size()));
    Files.write(page, updated, StandardCharsets.UTF_8);
  }

  private static int[] range(Path page, List<String> lines, String name) {
    int start = lines.indexOf(start(name));
    int end = lines.indexOf(end(name));
    if (start < 0 || end < start) {
      throw new IllegalStateException(
          "%s has no block between '%s' and '%s'"
              .formatted(page.getFileName(), start(name), end(name)));
    }
    return new int[] {start, end};
  }
}
