package dev.turnstile.contracttest;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.FileSystem;
import java.nio.file.FileSystemNotFoundException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The golden samples of a schema: realistic values under {@code golden/<schema>/*.json} on the test
 * classpath (schemas' test resources, shared through its test-jar), each valid against the schema
 * and equal to itself after a trip through its record.
 */
public final class GoldenSamples {

  /** One sample: its file name and bytes. */
  public record Sample(String name, byte[] json) {
    @Override
    public String toString() {
      return name;
    }
  }

  private GoldenSamples() {}

  /** The schema's resource path for a schema name such as {@code merge-result.v1}. */
  public static String schemaResource(String schema) {
    return "dev/turnstile/schemas/" + schema + ".schema.json";
  }

  /** The samples of {@code schema} (e.g. {@code merge-result.v1}), by file name. */
  public static List<Sample> of(String schema) {
    return under("golden/" + schema);
  }

  /**
   * Values under {@code golden-refused/<schema>/*.json}, each breaking a rule that both the schema
   * and the Java domain state (an identifier, the type, the form of a time), so that a test can
   * show the two refuse alike.
   */
  public static List<Sample> refused(String schema) {
    return under("golden-refused/" + schema);
  }

  private static List<Sample> under(String resource) {
    URL url = GoldenSamples.class.getClassLoader().getResource(resource);
    if (url == null) {
      throw new IllegalArgumentException("no samples under " + resource);
    }
    try {
      URI uri = url.toURI();
      if ("jar".equals(uri.getScheme())) {
        return fromJar(uri);
      }
      return read(Path.of(uri));
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  private static List<Sample> fromJar(URI uri) {
    FileSystem fs;
    try {
      fs = FileSystems.getFileSystem(uri);
    } catch (FileSystemNotFoundException e) {
      try {
        fs = FileSystems.newFileSystem(uri, Map.of());
      } catch (IOException io) {
        throw new UncheckedIOException(io);
      }
    }
    return read(fs.provider().getPath(uri));
  }

  private static List<Sample> read(Path dir) {
    try (Stream<Path> files = Files.list(dir)) {
      return files
          .filter(f -> f.getFileName().toString().endsWith(".json"))
          .sorted()
          .map(GoldenSamples::sample)
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Sample sample(Path file) {
    try {
      return new Sample(file.getFileName().toString(), Files.readAllBytes(file));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
