package dev.turnstile.artifact;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What {@code docs/consuming.md} tells a downstream team, done for real: from a clean checkout,
 * {@code ./mvnw install -pl schemas} into an empty local repository, then a consumer project that
 * knows nothing of Turnstile's build compiles and runs a test against the installed {@code
 * turnstile-schemas}. Both builds read plugins and third-party jars from this build's local
 * repository as a read-only tail ({@code maven.repo.local.tail}); what they install or still
 * download (a plugin this build did not need, e.g. the install plugin) goes to the temporary
 * repository only.
 */
class SchemasArtifactIT {

  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
  private static final String VERSION = System.getProperty("turnstile.version", "0.1.0-SNAPSHOT");

  @TempDir Path work;

  @Test
  void theContractsJarInstallsFromACleanCheckoutAndIsConsumedWithoutTurnstilesParent()
      throws Exception {
    Path checkout = cleanCheckout(work.resolve("checkout"));
    Path repository = work.resolve("repository");

    run(
        checkout,
        "install",
        "-pl",
        "schemas",
        "-Dmaven.test.skip=true",
        "-Dspotless.check.skip=true",
        "-Dmaven.repo.local=" + repository);

    Path installed = repository.resolve("dev/turnstile/turnstile-schemas/" + VERSION);
    String pom = Files.readString(installed.resolve("turnstile-schemas-" + VERSION + ".pom"));
    assertThat(pom)
        .doesNotContain("<parent>")
        .contains("<artifactId>jackson-databind</artifactId>");
    assertThat(repository.resolve("dev/turnstile/turnstile-parent")).doesNotExist();

    Path consumer = checkout.resolve("consumer");
    writeConsumerProject(consumer);
    run(checkout, "-f", "consumer/pom.xml", "test", "-Dmaven.repo.local=" + repository);
    assertThat(
            consumer.resolve(
                "target/surefire-reports/TEST-com.example.billing.ReadsTurnstileContractsTest.xml"))
        .content()
        .contains("tests=\"1\"")
        .contains("failures=\"0\"")
        .contains("errors=\"0\"");
  }

  /** The wrapper, every POM and the schemas module's main sources: what install reads. */
  private static Path cleanCheckout(Path checkout) throws IOException {
    List<Path> wanted = new ArrayList<>(List.of(Path.of("mvnw"), Path.of("pom.xml")));
    try (Stream<Path> files = Files.walk(ROOT.resolve(".mvn"))) {
      files.filter(Files::isRegularFile).map(ROOT::relativize).forEach(wanted::add);
    }
    try (Stream<Path> modules = Files.list(ROOT)) {
      modules
          .filter(m -> Files.isRegularFile(m.resolve("pom.xml")))
          .map(m -> ROOT.relativize(m.resolve("pom.xml")))
          .forEach(wanted::add);
    }
    try (Stream<Path> files = Files.walk(ROOT.resolve("schemas/src/main"))) {
      files.filter(Files::isRegularFile).map(ROOT::relativize).forEach(wanted::add);
    }
    for (Path file : wanted) {
      Path target = checkout.resolve(file);
      Files.createDirectories(target.getParent());
      Files.copy(ROOT.resolve(file), target);
    }
    checkout.resolve("mvnw").toFile().setExecutable(true);
    return checkout;
  }

  private static void writeConsumerProject(Path consumer) throws IOException {
    write(
        consumer.resolve("pom.xml"),
        """
        <project xmlns="http://maven.apache.org/POM/4.0.0">
          <modelVersion>4.0.0</modelVersion>
          <groupId>com.example</groupId>
          <artifactId>billing-consumer</artifactId>
          <version>1</version>
          <properties>
            <maven.compiler.release>17</maven.compiler.release>
            <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
          </properties>
          <dependencies>
            <dependency>
              <groupId>dev.turnstile</groupId>
              <artifactId>turnstile-schemas</artifactId>
              <version>%s</version>
            </dependency>
            <dependency>
              <groupId>org.junit.jupiter</groupId>
              <artifactId>junit-jupiter</artifactId>
              <version>%s</version>
              <scope>test</scope>
            </dependency>
          </dependencies>
          <build>
            <plugins>
              <plugin>
                <artifactId>maven-resources-plugin</artifactId>
                <version>3.3.1</version>
              </plugin>
              <plugin>
                <artifactId>maven-compiler-plugin</artifactId>
                <version>3.14.1</version>
              </plugin>
              <plugin>
                <artifactId>maven-surefire-plugin</artifactId>
                <version>3.5.4</version>
              </plugin>
            </plugins>
          </build>
        </project>
        """
            .formatted(VERSION, System.getProperty("junit.version", "5.14.4")));
    write(
        consumer.resolve("src/test/java/com/example/billing/ReadsTurnstileContractsTest.java"),
        """
        package com.example.billing;

        import dev.turnstile.schemas.DeviceSessionEvent;
        import dev.turnstile.schemas.DeviceSessionEventType;
        import dev.turnstile.schemas.Json;
        import dev.turnstile.schemas.TopicCatalogue;
        import org.junit.jupiter.api.Assertions;
        import org.junit.jupiter.api.Test;

        class ReadsTurnstileContractsTest {
          @Test
          void readsASessionEventWithTheContractsJarAlone() throws Exception {
            String json =
                "{\\"type\\":\\"Opened\\",\\"deviceId\\":\\"582873\\",\\"sessionId\\":\\"s-1\\","
                    + "\\"startedAt\\":\\"2014-11-18T15:40:26-08:00\\",\\"startEventId\\":\\"e\\","
                    + "\\"sessionRef\\":\\"42\\",\\"unknownLater\\":true}";
            DeviceSessionEvent event = Json.mapper().readValue(json, DeviceSessionEvent.class);
            Assertions.assertEquals(DeviceSessionEventType.Opened, event.type());
            Assertions.assertEquals("device-sessions.v1", TopicCatalogue.DEVICE_SESSIONS.name(""));
            Assertions.assertNotNull(
                Json.class.getResource("device-session-event.v1.schema.json"));
          }
        }
        """);
  }

  private static void write(Path file, String text) throws IOException {
    Files.createDirectories(file.getParent());
    Files.writeString(file, text, StandardCharsets.UTF_8);
  }

  /** Runs the checkout's wrapper with this build's repository as read-only tail. */
  private void run(Path dir, String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of("./mvnw", "-B", "-q"));
    command.add("-Dmaven.repo.local.tail=" + outerRepository());
    command.addAll(List.of(args));
    Path log = work.resolve("maven-" + System.nanoTime() + ".log");
    ProcessBuilder builder =
        new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true);
    builder.redirectOutput(log.toFile());
    builder.environment().remove("MAVEN_OPTS");
    builder.environment().remove("MAVEN_ARGS");
    Process process = builder.start();
    if (!process.waitFor(5, TimeUnit.MINUTES)) {
      process.destroyForcibly();
      throw new AssertionError("Maven did not finish within 5 minutes: " + command);
    }
    assertThat(process.exitValue()).as("%s%n%s", command, read(log)).isZero();
  }

  private static String read(Path log) {
    try {
      return Files.readString(log);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String outerRepository() {
    return System.getProperty(
        "turnstile.maven.repository",
        Path.of(System.getProperty("user.home"), ".m2", "repository").toString());
  }
}
