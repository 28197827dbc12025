package dev.turnstile.schemas;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@link RejectionReason} is the list of codes; the reason table of {@code docs/design.md} ("###
 * Rejection reasons", the first table under it) says for each code which stage emits it and when,
 * and must name every code exactly once and no other.
 */
class RejectionReasonDocsTest {

  private static final Path REPOSITORY = Path.of("..").toAbsolutePath().normalize();
  static final String PAGE = "docs/design.md";
  static final String SECTION = "### Rejection reasons";
  private static final Pattern CODE = Pattern.compile("`([A-Z][A-Z_]*)`");

  @Test
  void theDesignPageNamesEveryRejectionReasonOnce() throws IOException {
    List<String> lines = Files.readAllLines(REPOSITORY.resolve(PAGE), StandardCharsets.UTF_8);

    assertThat(drift(table(lines)))
        .as(PAGE + ", '" + SECTION + "', drifted from RejectionReason: change the table")
        .isEmpty();
  }

  @Test
  void theCheckNamesAMissingARepeatedAndAnUnknownCode() {
    List<String> rows = new ArrayList<>();
    rows.add("| reason | stage | when |");
    rows.add("| --- | --- | --- |");
    Arrays.stream(RejectionReason.values())
        .filter(r -> r != RejectionReason.STALE_PATCH)
        .forEach(r -> rows.add("| `" + r + "` | `merge` | always |"));
    rows.add("| `MISSING_EVENT_ID`, `NO_SUCH_CODE` | any | never |");

    assertThat(drift(rows))
        .containsExactly(
            "MISSING_EVENT_ID: in 2 rows",
            "STALE_PATCH: not in the table",
            "NO_SUCH_CODE: not a RejectionReason");
  }

  /** The lines of the first table after {@link #SECTION}, header included. */
  static List<String> table(List<String> lines) {
    int heading = lines.indexOf(SECTION);
    if (heading < 0) {
      throw new IllegalStateException(PAGE + " has no '" + SECTION + "' section");
    }
    int start = heading + 1;
    while (start < lines.size() && !lines.get(start).startsWith("|")) {
      if (lines.get(start).startsWith("#")) {
        throw new IllegalStateException(PAGE + "'s '" + SECTION + "' section has no table");
      }
      start++;
    }
    int end = start;
    while (end < lines.size() && lines.get(end).startsWith("|")) {
      end++;
    }
    return lines.subList(start, end);
  }

  /** One message per code missing, repeated, or unknown; the codes are in each row's first cell. */
  static List<String> drift(List<String> table) {
    Map<String, Integer> rows = new LinkedHashMap<>();
    for (String row : table.subList(Math.min(2, table.size()), table.size())) {
      String firstCell = row.substring(1, Math.max(1, row.indexOf('|', 1)));
      Matcher code = CODE.matcher(firstCell);
      while (code.find()) {
        rows.merge(code.group(1), 1, Integer::sum);
      }
    }
    List<String> drift = new ArrayList<>();
    for (RejectionReason reason : RejectionReason.values()) {
      Integer count = rows.remove(reason.name());
      if (count == null) {
        drift.add(reason + ": not in the table");
      } else if (count > 1) {
        drift.add(reason + ": in " + count + " rows");
      }
    }
    rows.keySet().forEach(code -> drift.add(code + ": not a RejectionReason"));
    return drift;
  }
}
