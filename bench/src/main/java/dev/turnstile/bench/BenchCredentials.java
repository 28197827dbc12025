package dev.turnstile.bench;

import dev.turnstile.bridge.application.auth.DeviceCredential;
import dev.turnstile.bridge.application.auth.DeviceCredential.Issued;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The benchmark's device credential: one fleet token ({@code *}) in a credentials file of the work
 * directory, so the bridge under load runs with device authentication on, as it ships, and every
 * request pays for checking its token.
 */
final class BenchCredentials {

  private final Path file;
  private final String authorization;

  private BenchCredentials(Path file, String authorization) {
    this.file = file;
    this.authorization = authorization;
  }

  /** Issues the token and writes the file under {@code workDir}. */
  static BenchCredentials issue(Path workDir) {
    Issued fleet = DeviceCredential.issue("*");
    Path file = workDir.resolve("device-credentials");
    try {
      Files.createDirectories(workDir);
      Files.writeString(file, fleet.credential().line() + "\n");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return new BenchCredentials(file, "Bearer " + fleet.token());
  }

  /** The bridge's argument naming the file. */
  String bridgeArgument() {
    return "bridge.auth.credentials-file=" + file;
  }

  /** The {@code Authorization} header value of every request to the bridge. */
  String authorization() {
    return authorization;
  }
}
