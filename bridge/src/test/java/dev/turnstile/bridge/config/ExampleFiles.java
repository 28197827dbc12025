package dev.turnstile.bridge.config;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Collectors;

/** The example files of {@code config/} as the tests read them. */
final class ExampleFiles {

  static final Path CONFIG = Path.of("..", "config").toAbsolutePath().normalize();

  private ExampleFiles() {}

  /**
   * {@code config/bridge.properties} with its commented-out Service Bus lines ({@code
   * #bridge.servicebus.*}) turned on, as a user who names their entities would: a file under the
   * temporary directory, deleted when the JVM exits.
   */
  static Path bridgeWithServiceBus() {
    try {
      String text =
          Files.readAllLines(CONFIG.resolve("bridge.properties")).stream()
              .map(line -> line.startsWith("#bridge.servicebus.") ? line.substring(1) : line)
              .collect(Collectors.joining("\n", "", "\n"));
      Path file = Files.createTempFile("bridge-with-servicebus", ".properties");
      file.toFile().deleteOnExit();
      return Files.writeString(file, text);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
