package dev.turnstile.local;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Each Dockerfile is a thin layer over the tested distribution: an official JRE base, a non-root
 * user, the distribution's own launch script as entry point, heap sized by the container. Checked
 * on every machine; where podman is, ContainerImagesIT also builds both images and runs them.
 */
class DockerfilesTest {

  static final Path REPOSITORY = Path.of("..").toAbsolutePath().normalize();

  @ParameterizedTest
  @ValueSource(strings = {"bridge", "topology"})
  void theImageIsTheDistributionOnAnOfficialJreAsNonRoot(String process) throws Exception {
    List<String> lines = Files.readAllLines(REPOSITORY.resolve(process + "/Dockerfile"));
    String text = String.join("\n", lines);
    Path distribution = REPOSITORY.resolve(process + "/target/turnstile-" + process);

    assertThat(lines).contains("FROM eclipse-temurin:17-jre");
    assertThat(text).contains("USER 10001:10001").contains("-XX:MaxRAMPercentage=");
    Matcher copy = Pattern.compile("COPY (\\S+) (\\S+)").matcher(text);
    int copies = 0;
    while (copy.find()) {
      copies++;
      assertThat(copy.group(1)).startsWith(process + "/target/turnstile-" + process + "/");
      assertThat(REPOSITORY.resolve(copy.group(1))).as(copy.group(1)).isDirectory();
    }
    assertThat(copies).isEqualTo(3);
    Matcher entry = Pattern.compile("ENTRYPOINT \\[\"/opt/turnstile/(bin/[^\"]+)\"]").matcher(text);
    assertThat(entry.find()).isTrue();
    assertThat(distribution.resolve(entry.group(1))).isExecutable();
  }
}
