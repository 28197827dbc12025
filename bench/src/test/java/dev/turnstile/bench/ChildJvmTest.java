package dev.turnstile.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A child JVM gets its arguments unchanged, and none of them shows on its command line, which every
 * user of the machine can read; a results file shows no secret's value.
 */
class ChildJvmTest {

  /** The child: prints its arguments as one JSON array, then runs until its stdin closes. */
  public static final class EchoArguments {
    public static void main(String[] args) throws Exception {
      System.out.println("ARGS " + new ObjectMapper().writeValueAsString(args));
      System.out.flush();
      while (System.in.read() >= 0) {
        // until the harness closes our stdin
      }
    }
  }

  @Test
  void theArgumentsArriveUnchangedAndStayOffTheCommandLine(@TempDir Path dir) throws Exception {
    List<String> args =
        List.of(
            "plain",
            "with two  spaces",
            "a \"quoted\" word",
            "C:\\path\\ending\\",
            "",
            "#not a comment",
            "'single'",
            "@not-a-file",
            "two\nlines and a\r return",
            "tab\there",
            "kafka.sasl.jaas.config=org.example.Login required password=\"s3cret-value\";");
    try (ChildJvm child =
        ChildJvm.start(
            List.of("-Xmx64m"), EchoArguments.class.getName(), args, dir.resolve("child.log"))) {
      String echoed = child.await("ARGS ", Duration.ofSeconds(60));
      assertThat(Arrays.asList(new ObjectMapper().readValue(echoed, String[].class)))
          .containsExactlyElementsOf(args);
      Path cmdline = Path.of("/proc", Long.toString(child.pid()), "cmdline");
      if (Files.isReadable(cmdline)) {
        String command =
            new String(Files.readAllBytes(cmdline), StandardCharsets.UTF_8).replace('\0', ' ');
        assertThat(command).contains("-Xmx64m").doesNotContain("s3cret-value", "plain");
      }
    }
  }

  @Test
  void aSecretsValueIsHiddenAndTheRestShown() {
    Map<String, String> overrides = new LinkedHashMap<>();
    overrides.put("kafka.sasl.jaas.config", "password=\"s3cret\"");
    overrides.put("kafka.streams.commit.interval.ms", "50");
    assertThat(
            BenchResults.shown(
                overrides, dev.turnstile.topology.config.TopologyConfigModel.MODEL::isSecret))
        .containsExactly(
            Map.entry("kafka.sasl.jaas.config", dev.turnstile.runtime.config.Settings.HIDDEN),
            Map.entry("kafka.streams.commit.interval.ms", "50"));
  }
}
