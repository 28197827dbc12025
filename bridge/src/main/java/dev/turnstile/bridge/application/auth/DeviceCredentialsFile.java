package dev.turnstile.bridge.application.auth;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/**
 * The credentials file and the credentials last read from it. {@link #reloadIfChanged()} reads it
 * again and swaps the credentials in when its content changed, so a credential added or removed
 * (say, by updating the Kubernetes Secret the file is mounted from) takes effect without a restart.
 * Compares content, not modification times: a mounted Secret changes by a symlink swap.
 */
public final class DeviceCredentialsFile {

  private final Path path;
  private volatile byte[] content;
  private volatile DeviceCredentials current;

  private DeviceCredentialsFile(Path path, byte[] content, DeviceCredentials current) {
    this.path = path;
    this.content = content;
    this.current = current;
  }

  /**
   * Reads the file.
   *
   * @throws IllegalArgumentException when it cannot be read or a line is not a credential
   */
  public static DeviceCredentialsFile load(Path path) {
    byte[] content = read(path);
    return new DeviceCredentialsFile(path, content, parse(path, content));
  }

  /** The credentials as last read. */
  public DeviceCredentials current() {
    return current;
  }

  /** The file's path. */
  public Path path() {
    return path;
  }

  /**
   * Reads the file again; takes its credentials when its content changed.
   *
   * @return whether the credentials were replaced
   * @throws IllegalArgumentException when the file cannot be read or is not valid: the credentials
   *     read before stay in force
   */
  public boolean reloadIfChanged() {
    byte[] now = read(path);
    if (Arrays.equals(now, content)) {
      return false;
    }
    DeviceCredentials parsed = parse(path, now);
    current = parsed;
    content = now;
    return true;
  }

  private static byte[] read(Path path) {
    try {
      return Files.readAllBytes(path);
    } catch (NoSuchFileException e) {
      throw new IllegalArgumentException(
          ("no credentials file %s: issue a device its token into it with `turnstile device-token"
                  + " <device-id> --append %s`, or name another file")
              .formatted(path, path));
    } catch (IOException | UncheckedIOException e) {
      throw new IllegalArgumentException("cannot read the credentials file " + path + ": " + e);
    }
  }

  private static DeviceCredentials parse(Path path, byte[] content) {
    List<String> lines = new String(content, StandardCharsets.UTF_8).lines().toList();
    try {
      return DeviceCredentials.parse(lines);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("credentials file " + path + ", " + e.getMessage());
    }
  }
}
