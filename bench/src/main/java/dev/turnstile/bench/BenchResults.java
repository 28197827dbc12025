package dev.turnstile.bench;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.turnstile.runtime.config.Settings;
import dev.turnstile.schemas.Json;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Predicate;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * What every benchmark command shares (a picocli mixin): its rounds, where its results go, and what
 * they were measured on. The results are {@code <out>/<name>.json} and {@code <out>/<name>.png}.
 */
final class BenchResults {

  @Option(
      names = "--runs",
      description = "rounds; medians are reported (default: ${DEFAULT-VALUE})")
  int runs = 3;

  @Option(names = "--out", description = "results folder (default: ${DEFAULT-VALUE})")
  Path out = Path.of("docs", "bench");

  @Option(
      names = "--name",
      description = "results file name, without .json or .png (default: the command's name)")
  String name;

  @Spec(Spec.Target.MIXEE)
  CommandSpec command;

  /**
   * Prints the machine (with the load average now) and creates the results folder.
   *
   * @return the machine, for the results file; {@link #end} adds the load average at the end
   */
  Map<String, String> begin() throws IOException {
    Map<String, String> machine = Machine.describe();
    machine.put("loadAverageAtStart", Machine.loadAverage());
    machine.forEach((k, v) -> System.out.printf("%-8s %s%n", k, v));
    Files.createDirectories(out);
    return machine;
  }

  /** Adds the load average at the end of the measurements to {@code machine}. */
  void end(Map<String, String> machine) {
    machine.put("loadAverageAtEnd", Machine.loadAverage());
  }

  /**
   * {@code values} as a results file may show them: the value of every key {@code secret} names (a
   * configuration model's secrets: {@code ConfigModel#isSecret}) replaced by {@link
   * Settings#HIDDEN}, in the same order.
   */
  static <V> Map<String, Object> shown(Map<String, V> values, Predicate<String> secret) {
    Map<String, Object> shown = new LinkedHashMap<>();
    values.forEach((key, value) -> shown.put(key, secret.test(key) ? Settings.HIDDEN : value));
    return shown;
  }

  /** A results document naming the benchmark (the command), when, and on what. */
  ObjectNode document(Map<String, String> machine) {
    ObjectNode json = Json.mapper().createObjectNode();
    json.put("benchmark", command.name());
    json.put("measuredAt", Instant.now().toString());
    json.set("machine", Json.mapper().valueToTree(machine));
    return json;
  }

  /** Writes {@code json} to the results file; its path. */
  Path write(ObjectNode json) throws IOException {
    Path results = file(".json");
    Files.write(results, Json.mapper().writerWithDefaultPrettyPrinter().writeValueAsBytes(json));
    return results;
  }

  /** The chart's path. */
  Path chart() {
    return file(".png");
  }

  private Path file(String extension) {
    return out.resolve((name != null ? name : command.name()) + extension);
  }
}
