package dev.turnstile.runtime.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every relative link of {@code README.md} and {@code docs/**}{@code .md} leads somewhere: its file
 * or folder exists, and its {@code #anchor}, if any, is a heading of the Markdown page it names, by
 * GitHub's heading anchors (lower case; letters, digits, {@code -} and {@code _} kept, each space a
 * {@code -}, everything else dropped; a repeated heading gets {@code -1}, {@code -2}...). Links
 * with a scheme ({@code https:}, {@code mailto:}) are not followed; links in code are not links.
 */
class DocumentationLinksTest {

  static final Path REPOSITORY = Path.of("..").toAbsolutePath().normalize();

  /** {@code [text](target)} and {@code ![alt](target)}, an optional title after the target. */
  private static final Pattern LINK =
      Pattern.compile(
          "!?\\[(?:[^\\]\\[]|\\[[^\\]]*\\])*\\]\\(\\s*<?([^)\\s>]*)>?(?:\\s+\"[^\"]*\")?\\)");

  private static final Pattern CODE_SPAN = Pattern.compile("(`+)(?:(?!\\1).)+?\\1");
  private static final Pattern HEADING = Pattern.compile("^ {0,3}(#{1,6})\\s+(.*?)\\s*#*\\s*$");
  private static final Pattern SCHEME = Pattern.compile("^[a-zA-Z][a-zA-Z0-9+.-]*:");

  @Test
  void everyLinkOfTheReadmeAndTheManualResolves() throws IOException {
    List<Path> pages = new ArrayList<>(List.of(REPOSITORY.resolve("README.md")));
    try (Stream<Path> docs = Files.walk(REPOSITORY.resolve("docs"))) {
      docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
    }
    assertThat(pages).hasSizeGreaterThan(5);

    assertThat(brokenLinks(REPOSITORY, pages)).as("broken links").isEmpty();
  }

  @Test
  void aMissingFileAMissingAnchorAndAnAnchorOfAnotherPageAreReported(@TempDir Path dir)
      throws IOException {
    Path readme = dir.resolve("README.md");
    Path page = dir.resolve("docs/page.md");
    Files.createDirectories(page.getParent());
    Files.writeString(
        readme,
        """
        # Title
        [ok](docs/page.md#the-turnstile-command-v1) [ok too](#title) ![img](docs/page.md)
        [gone](docs/gone.md) [no anchor](docs/page.md#nowhere) [self](#nowhere-here)
        `[in code](docs/gone.md)` [web](https://example.com/x#y)
        ```
        [in a fence](docs/gone.md)
        ```
        """);
    Files.writeString(
        page,
        """
        ## The `turnstile` command (v1)
        [back](../README.md#title) [again](#the-turnstile-command-v1-1)
        ## The `turnstile` command (v1)
        """);

    assertThat(brokenLinks(dir, List.of(readme, page)))
        .containsExactly(
            "README.md:3: docs/gone.md: no such file",
            "README.md:3: docs/page.md#nowhere: no heading 'nowhere' in docs/page.md",
            "README.md:3: #nowhere-here: no heading 'nowhere-here' in README.md");
  }

  @Test
  void headingsTakeGitHubsAnchors() {
    assertThat(slug("Kafka SASL/SCRAM and ACLs")).isEqualTo("kafka-saslscram-and-acls");
    assertThat(slug("The `turnstile` command")).isEqualTo("the-turnstile-command");
    assertThat(slug("Rebalances: 503, never a wrong answer"))
        .isEqualTo("rebalances-503-never-a-wrong-answer");
    assertThat(slug("[Linked](x.md) **bold** `exactly_once_v2`"))
        .isEqualTo("linked-bold-exactly_once_v2");
  }

  /** One line per link that does not resolve: page, line, target, why. */
  static List<String> brokenLinks(Path root, List<Path> pages) throws IOException {
    Map<Path, Set<String>> anchors = new HashMap<>();
    List<String> broken = new ArrayList<>();
    for (Path page : pages) {
      List<String> lines = Files.readAllLines(page, StandardCharsets.UTF_8);
      boolean fenced = false;
      for (int i = 0; i < lines.size(); i++) {
        String line = lines.get(i);
        if (line.strip().startsWith("```")) {
          fenced = !fenced;
          continue;
        }
        if (fenced) {
          continue;
        }
        Matcher link = LINK.matcher(CODE_SPAN.matcher(line).replaceAll(""));
        while (link.find()) {
          String target = link.group(1);
          String problem = problem(page, target, anchors);
          if (problem != null) {
            broken.add(root.relativize(page) + ":" + (i + 1) + ": " + target + ": " + problem);
          }
        }
      }
    }
    return broken;
  }

  private static String problem(Path page, String target, Map<Path, Set<String>> anchors)
      throws IOException {
    if (target.isEmpty() || SCHEME.matcher(target).find()) {
      return target.isEmpty() ? "empty link" : null;
    }
    int hash = target.indexOf('#');
    String path = hash < 0 ? target : target.substring(0, hash);
    Path file = path.isEmpty() ? page : page.getParent().resolve(path).normalize();
    if (!Files.exists(file)) {
      return "no such file";
    }
    if (hash < 0) {
      return null;
    }
    String anchor = target.substring(hash + 1);
    if (!file.toString().endsWith(".md")) {
      return "an anchor into a file that is not Markdown";
    }
    Set<String> known = anchors.get(file);
    if (known == null) {
      known = headingAnchors(Files.readAllLines(file, StandardCharsets.UTF_8));
      anchors.put(file, known);
    }
    if (known.contains(anchor)) {
      return null;
    }
    return "no heading '" + anchor + "' in " + page.getParent().relativize(file).toString();
  }

  /** The anchors GitHub gives a page's headings, fenced code excluded. */
  static Set<String> headingAnchors(List<String> lines) {
    Set<String> anchors = new HashSet<>();
    Map<String, Integer> seen = new HashMap<>();
    boolean fenced = false;
    for (String line : lines) {
      if (line.strip().startsWith("```")) {
        fenced = !fenced;
        continue;
      }
      Matcher heading = HEADING.matcher(line);
      if (fenced || !heading.matches()) {
        continue;
      }
      String slug = slug(heading.group(2));
      int count = seen.merge(slug, 1, Integer::sum);
      anchors.add(count == 1 ? slug : slug + "-" + (count - 1));
    }
    return anchors;
  }

  /** GitHub's anchor of a heading whose Markdown text is {@code text}. */
  static String slug(String text) {
    String rendered =
        text.replaceAll("!?\\[([^\\]]*)\\]\\([^)]*\\)", "$1") // a link shows its text
            .replace("`", "")
            .replace("*", "");
    StringBuilder slug = new StringBuilder();
    rendered
        .toLowerCase(Locale.ROOT)
        .codePoints()
        .forEach(
            c -> {
              if (c == ' ') {
                slug.append('-');
              } else if (Character.isLetterOrDigit(c) || c == '-' || c == '_') {
                slug.appendCodePoint(c);
              }
            });
    return slug.toString();
  }
}
