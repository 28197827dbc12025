package dev.turnstile.runtime.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.turnstile.runtime.config.ConfigModel;
import dev.turnstile.runtime.config.InvalidConfigurationException;
import dev.turnstile.runtime.config.Keys;
import dev.turnstile.runtime.config.PassThrough;
import dev.turnstile.runtime.config.Setting;
import dev.turnstile.runtime.config.Settings;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProcessCommandLineTest {

  static final Keys KEYS = new Keys();
  static final Keys.Group EXAMPLE = KEYS.group("Example");
  static final Setting<String> BOOTSTRAP = EXAMPLE.required("kafka.bootstrap.servers").doc("b");
  static final Setting<Integer> PORT =
      EXAMPLE.integer("example.port", 8080).between(0, 65_535).doc("port");
  static final Setting<Optional<String>> TOKEN = EXAMPLE.secret("example.token").doc("t");

  static final ConfigModel MODEL =
      new ConfigModel(
          "turnstile-example",
          KEYS,
          List.of(
              new PassThrough(
                  "kafka.",
                  "the producer",
                  Map.of("", List.of(ProducerConfig.configDef())),
                  Map.of("acks", "fixed at all"))),
          List.of());

  record Run(ProcessCommandLine.Outcome<Integer> outcome, String out, String err) {}

  static Run run(Map<String, String> env, String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    ProcessCommandLine<Integer> line =
        new ProcessCommandLine<>(
            MODEL,
            "An example process.",
            (Settings s) -> {
              if (s.get(PORT) == 1) {
                throw InvalidConfigurationException.of("example.port", "1 is reserved");
              }
              return s.get(PORT);
            });
    return new Run(
        line.parse(args, env, new PrintWriter(out, true), new PrintWriter(err, true)),
        out.toString(),
        err.toString());
  }

  @Test
  void helpPrintsAUsageWithTheProgramNameAndExitsZero() {
    Run run = run(Map.of(), "--help");

    assertThat(run.outcome().run()).isFalse();
    assertThat(run.outcome().exitCode()).isEqualTo(ExitCode.OK);
    assertThat(run.out())
        .startsWith("Usage: turnstile-example [")
        .contains("--config=FILE", "An example process.", "Exit codes:")
        .doesNotContain("dev.turnstile", "ProcessCommandLine");
  }

  @Test
  void everyConfigurationProblemIsOneLineAndExitCodeTwo(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("example.properties");
    Files.writeString(file, "example.prot=9000\nkafka.acks=0\nexample.token=hunter2\n");

    Run run = run(Map.of("TURNSTILE_EXAMPLE_PORT", "http"), "--config", file.toString());

    assertThat(run.outcome().exitCode()).isEqualTo(ExitCode.CONFIG);
    assertThat(run.err().lines())
        .containsExactly(
            "turnstile-example: configuration error",
            "  example.port: invalid value 'http': Not a number of type INT",
            "  example.prot: unknown key; did you mean example.port?",
            "  kafka.acks: cannot be set: fixed at all",
            "  kafka.bootstrap.servers: is required");
    assertThat(run.err()).doesNotContain("hunter2", "Exception", "\tat ");
  }

  @Test
  void rulesBetweenKeysAreReportedTheSameWay() {
    Run run =
        run(Map.of("TURNSTILE_KAFKA_BOOTSTRAP_SERVERS", "k:9092", "TURNSTILE_EXAMPLE_PORT", "1"));

    assertThat(run.outcome().exitCode()).isEqualTo(ExitCode.CONFIG);
    assertThat(run.err()).contains("  example.port: 1 is reserved");
  }

  @Test
  void aBadArgumentIsAUsageErrorWithExitCodeTwo() {
    Run run = run(Map.of(), "--confg", "x");

    assertThat(run.outcome().exitCode()).isEqualTo(ExitCode.CONFIG);
    assertThat(run.err()).contains("turnstile-example: Unknown option", "--help");
  }

  @Test
  void checkConfigPrintsTheConfigurationWithSecretsHidden() {
    Run run =
        run(
            Map.of(
                "TURNSTILE_KAFKA_BOOTSTRAP_SERVERS", "k:9092",
                "TURNSTILE_EXAMPLE_TOKEN", "hunter2",
                "TURNSTILE_KAFKA_SASL_JAAS_CONFIG", "password=hunter3",
                "TURNSTILE_JAVA_OPTS", "-Xmx1g"),
            "--check-config");

    assertThat(run.outcome().exitCode()).as(run.err()).isEqualTo(ExitCode.OK);
    assertThat(run.outcome().run()).isFalse();
    assertThat(run.out())
        .contains("example.port=8080", "example.token=[hidden]", "kafka.sasl.jaas.config=[hidden]")
        .doesNotContain("hunter2", "hunter3");
  }

  @Test
  void aValidConfigurationRuns() {
    Run run = run(Map.of("TURNSTILE_KAFKA_BOOTSTRAP_SERVERS", "k:9092"));

    assertThat(run.outcome().run()).isTrue();
    assertThat(run.outcome().config()).isEqualTo(8080);
    assertThat(run.err()).isEmpty();
  }
}
