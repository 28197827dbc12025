package dev.turnstile.local;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The alerts are declared once, in {@code k8s/components/monitoring/prometheusrule.yaml}; {@code
 * docs/operations.md} names each in its table of what to watch and gives each a runbook entry (a
 * heading that names it), and names no alert that does not exist.
 */
class AlertsDocumentedTest {

  static final Path REPOSITORY = Path.of("..").toAbsolutePath().normalize();
  static final Path RULES = REPOSITORY.resolve("k8s/components/monitoring/prometheusrule.yaml");
  static final Path PAGE = REPOSITORY.resolve("docs/operations.md");

  private static final Pattern DECLARED = Pattern.compile("(?m)^\\s*- alert:\\s*(\\S+)\\s*$");
  private static final Pattern NAMED = Pattern.compile("`(Turnstile[A-Za-z0-9]+)`");

  @Test
  void everyAlertHasARowAndARunbookEntryAndNoOtherIsNamed() throws IOException {
    Set<String> declared = matches(DECLARED, Files.readString(RULES));
    List<String> page = Files.readAllLines(PAGE);
    Set<String> named = matches(NAMED, String.join("\n", page));
    Set<String> inRunbook = new TreeSet<>();
    int runbook = page.indexOf("## Runbook");
    for (String line : page.subList(Math.max(0, runbook), page.size())) {
      if (line.startsWith("### ")) {
        inRunbook.addAll(matches(NAMED, line));
      }
    }

    assertThat(declared).as("alerts in %s", RULES.getFileName()).isNotEmpty();
    assertThat(runbook).as("docs/operations.md has a '## Runbook' section").isPositive();
    assertThat(named).as("alerts docs/operations.md names").isEqualTo(declared);
    assertThat(inRunbook).as("alerts with a runbook heading").isEqualTo(declared);
  }

  private static Set<String> matches(Pattern pattern, String text) {
    Set<String> found = new TreeSet<>();
    Matcher matcher = pattern.matcher(text);
    while (matcher.find()) {
      found.add(matcher.group(1));
    }
    return found;
  }
}
