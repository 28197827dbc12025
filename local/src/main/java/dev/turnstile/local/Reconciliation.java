package dev.turnstile.local;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.turnstile.schemas.Json;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** A table of figures, each either checked (expected vs actual) or for information only. */
final class Reconciliation {

  record Row(String name, String jsonName, BigDecimal expected, BigDecimal actual) {
    boolean ok() {
      return expected == null || expected.compareTo(actual) == 0;
    }
  }

  private final List<Row> rows = new ArrayList<>();

  /** A count that must equal {@code expected}, computed independently. */
  Reconciliation check(String name, String jsonName, long expected, long actual) {
    return check(name, jsonName, BigDecimal.valueOf(expected), BigDecimal.valueOf(actual));
  }

  /** An amount that must equal {@code expected} exactly, computed independently. */
  Reconciliation check(String name, String jsonName, BigDecimal expected, BigDecimal actual) {
    rows.add(new Row(name, jsonName, expected, actual));
    return this;
  }

  /** A figure shown for information. */
  Reconciliation info(String name, String jsonName, long actual) {
    rows.add(new Row(name, jsonName, null, BigDecimal.valueOf(actual)));
    return this;
  }

  boolean reconciled() {
    return rows.stream().allMatch(Row::ok);
  }

  String table() {
    int width = rows.stream().mapToInt(r -> r.name().length()).max().orElse(10);
    StringBuilder out = new StringBuilder();
    String format = "%-" + width + "s  %14s  %14s  %s%n";
    out.append(String.format(Locale.ROOT, format, "figure", "expected", "actual", ""));
    out.append("-".repeat(width + 38)).append('\n');
    for (Row row : rows) {
      out.append(
          String.format(
              Locale.ROOT,
              format,
              row.name(),
              row.expected() == null ? "" : row.expected().toPlainString(),
              row.actual().toPlainString(),
              row.expected() == null ? "" : row.ok() ? "ok" : "MISMATCH"));
    }
    out.append("-".repeat(width + 38)).append('\n');
    out.append(
        reconciled()
            ? "RECONCILED: every checked figure matches the CSV.\n"
            : "NOT RECONCILED: see the MISMATCH rows.\n");
    return out.toString();
  }

  ObjectNode json() {
    ObjectNode json = Json.mapper().createObjectNode();
    ObjectNode expected = Json.mapper().createObjectNode();
    for (Row row : rows) {
      json.put(row.jsonName(), row.actual());
      if (row.expected() != null) {
        expected.put(row.jsonName(), row.expected());
      }
    }
    json.put("reconciled", reconciled());
    json.set("expected", expected);
    return json;
  }
}
