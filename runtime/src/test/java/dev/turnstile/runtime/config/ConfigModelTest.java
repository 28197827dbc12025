package dev.turnstile.runtime.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigModelTest {

  static final Keys KEYS = new Keys();
  static final Keys.Group EXAMPLE = KEYS.group("Example");
  static final Setting<String> NAME = EXAMPLE.required("example.name").doc("a name");
  static final Setting<Duration> TIMEOUT =
      EXAMPLE.millis("example.timeout-ms", 1_000).atLeast(10).doc("a timeout");
  static final Setting<Duration> IDLE =
      EXAMPLE.millis("example.idle-ms", 5_000).atLeast(10).doc("must exceed the timeout");
  static final Setting<Optional<String>> TOKEN = EXAMPLE.secret("example.token").doc("a secret");
  static final Setting<Optional<String>> URL = EXAMPLE.optional("example.url").doc("a URL");
  static final Setting<String> ITEMS = EXAMPLE.string("example.items", "").doc("item names");
  static final Keys.Group ITEM = KEYS.template("example.item.", Pattern.compile("[a-z]+"), ITEMS);
  static final Setting<Integer> SIZE = ITEM.integer("size", 1).between(1, 9).doc("its size");

  static final ConfigModel MODEL =
      new ConfigModel(
          "turnstile-example",
          KEYS,
          List.of(),
          List.of(
              (s, problems) -> {
                if (s.get(IDLE).compareTo(s.get(TIMEOUT)) <= 0) {
                  problems.add(
                      IDLE + ": must exceed " + TIMEOUT + "; see " + s.get(URL).orElse(""));
                }
              },
              (s, problems) -> {
                if (s.get(TOKEN).isEmpty()) {
                  problems.add(TOKEN + ": must be set");
                }
              }));

  @Test
  void settingsReadTypedValuesAndDeclaredDefaults() {
    Settings s =
        MODEL.parse(
            Map.of(
                "example.name", " turnstile ",
                "example.token", "hunter2",
                "example.url", " ",
                "example.items", "a,b",
                "example.item.b.size", "3"));

    assertThat(s.get(NAME)).isEqualTo("turnstile");
    assertThat(s.get(TIMEOUT)).isEqualTo(Duration.ofSeconds(1));
    assertThat(s.get(URL)).as("blank is unset").isEmpty();
    assertThat(s.get(TOKEN)).contains("hunter2");
    assertThat(s.instances(ITEM).get("a").get(SIZE)).isEqualTo(1);
    assertThat(s.instances(ITEM).get("b").get(SIZE)).isEqualTo(3);
    assertThat(s.toString()).contains("example.token=[hidden]").doesNotContain("hunter2");
  }

  /** Per-key problems and broken rules together; a rule whose keys are invalid is left out. */
  @Test
  void everyProblemIsReportedAtOnceEachByItsKey() {
    assertThatThrownBy(
            () ->
                MODEL.parse(
                    Map.of(
                        "example.idle-ms", "500",
                        "example.timeout-ms", "900",
                        "example.url", "https://user:s3cret@idp.example/",
                        "example.items", "a",
                        "example.item.a.size", "0")))
        .isInstanceOfSatisfying(
            InvalidConfigurationException.class,
            e ->
                assertThat(e.problems())
                    .containsExactly(
                        "example.idle-ms: must exceed example.timeout-ms; see"
                            + " https://(hidden)@idp.example/",
                        "example.item.a.size: invalid value '0': Value must be at least 1",
                        "example.name: is required",
                        "example.token: must be set"));
    assertThatThrownBy(
            () ->
                MODEL.parse(
                    Map.of(
                        "example.name", "n", "example.token", "t", "example.timeout-ms", "soon")))
        .isInstanceOfSatisfying(
            InvalidConfigurationException.class,
            e ->
                assertThat(e.problems())
                    .containsExactly(
                        "example.timeout-ms: invalid value 'soon': Not a number of type LONG"));
  }

  @Test
  void aSettingParsesWhatAClientHandsOnWithItsDefaultWhereAbsent() {
    assertThat(TIMEOUT.parse(null)).isEqualTo(Duration.ofSeconds(1));
    assertThat(TIMEOUT.parse("250")).isEqualTo(Duration.ofMillis(250));
    assertThat(TIMEOUT.parse(250L)).isEqualTo(Duration.ofMillis(250));
    assertThatThrownBy(() -> TIMEOUT.parse("5")).isInstanceOf(ConfigException.class);
  }

  @Test
  void aFileLineThatRestatesADeclaredDefaultIsNamed(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("example.properties");
    Files.writeString(
        file,
        String.join(
            "\n",
            "example.name=turnstile",
            "example.timeout-ms=1000 ",
            "example.idle-ms=",
            "example.items=",
            "example.url=https://idp.example/",
            "example.item.a.size=1"));
    // Padded, blank (reads as the default) and empty-string values restate it; the rest do not.
    assertThat(MODEL.keysSetToTheirDefault(file))
        .containsExactly("example.idle-ms", "example.items", "example.timeout-ms");

    // An invalid value is not a default: loading the file reports it.
    Files.writeString(file, "example.timeout-ms=5\nexample.idle-ms=5000\n");
    assertThat(MODEL.keysSetToTheirDefault(file)).containsExactly("example.idle-ms");
  }
}
