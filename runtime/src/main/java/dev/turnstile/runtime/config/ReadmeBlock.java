package dev.turnstile.runtime.config;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A generated block of the README between {@code <!-- generated: NAME -->} and {@code <!-- end:
 * NAME -->}: read for drift tests, rewritten on request.
 */
public final class ReadmeBlock {

  private ReadmeBlock() {}

  public static String start(String name) {
    return "<!-- generated: " + name + " (do not edit; see ConfigDocs) -->";
  }

  public static String end(String name) {
    return "<!-- end: " + name + " -->";
  }

  /** The block's lines, markers excluded. */
  public static List<String> read(Path readme, String name) throws IOException {
    List<String> lines = Files.readAllLines(readme, StandardCharsets.UTF_8);
    int[] range = range(lines, name);
    return new ArrayList<>(lines.subList(range[0] + 1, range[1]));
  }

  /** Replaces the block's lines with {@code content}. */
  public static void write(Path readme, String name, List<String> content) throws IOException {
    List<String> lines = Files.readAllLines(readme, StandardCharsets.UTF_8);
    int[] range = range(lines, name);
    List<String> updated = new ArrayList<>(lines.subList(0, range[0] + 1));
    updated.addAll(content);
    updated.addAll(lines.subList(range[1], lines.size()));
    Files.write(readme, updated, StandardCharsets.UTF_8);
  }

  private static int[] range(List<String> lines, String name) {
    int start = lines.indexOf(start(name));
    int end = lines.indexOf(end(name));
    if (start < 0 || end < start) {
      throw new IllegalStateException(
          "README.md has no block between '" + start(name) + "' and '" + end(name) + "'");
    }
    return new int[] {start, end};
  }
}
