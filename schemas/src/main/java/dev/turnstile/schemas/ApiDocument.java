package dev.turnstile.schemas;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * The OpenAPI 3.1 document of each Turnstile process, kept as a resource beside the JSON Schemas it
 * references ({@code dev/turnstile/schemas/}), and what a process serves of them under {@value
 * #BASE_PATH}: its own document and the JSON Schemas, so that the document's relative {@code $ref}s
 * ({@code problem.v1.schema.json}) resolve against the address it was fetched from.
 *
 * <p>A process serves them with one route, e.g. on Vert.x: {@code router.get(ApiDocument.ROUTE)
 * .handler(ctx -> BRIDGE.file(ctx.pathParam("file")).ifPresentOrElse(f ->
 * ctx.response().putHeader("Content-Type", f.contentType()).end(Buffer.buffer(f.bytes())),
 * ctx::next))}.
 */
public enum ApiDocument {
  /** The bridge: device events, batches, probes, metrics. */
  BRIDGE("bridge.v1.openapi.yaml"),
  /** The topology: queries of sessions and merged documents, probes, metrics. */
  TOPOLOGY("topology.v1.openapi.yaml");

  /** Where each process serves its document and the schemas: {@code /openapi/<file>}. */
  public static final String BASE_PATH = "/openapi/";

  /** The same as a Vert.x route path with the file name as parameter {@code file}. */
  public static final String ROUTE = BASE_PATH + ":file";

  /** Media type of the document (RFC 9512). */
  public static final String YAML = "application/yaml";

  /** Media type of a JSON Schema (draft 2020-12, §14.1). */
  public static final String SCHEMA_JSON = "application/schema+json";

  private static final String RESOURCE_DIR = "/dev/turnstile/schemas/";
  private static final Pattern SCHEMA_FILE =
      Pattern.compile("[a-z][a-z0-9-]*\\.v[0-9]+\\.schema\\.json");

  /** Files read once; the resources do not change while a process runs. */
  private static final Map<String, byte[]> CACHE = new ConcurrentHashMap<>();

  private final String fileName;

  ApiDocument(String fileName) {
    this.fileName = fileName;
  }

  /** The document's file name, e.g. {@code bridge.v1.openapi.yaml}. */
  public String fileName() {
    return fileName;
  }

  /** The path the process serves its document at, e.g. {@code /openapi/bridge.v1.openapi.yaml}. */
  public String path() {
    return BASE_PATH + fileName;
  }

  /**
   * A file to serve: its bytes and their media type. The array is shared between answers: write it
   * out, never change it.
   */
  public record ServedFile(String contentType, byte[] bytes) {}

  /**
   * The file of that name this process serves: its own document ({@value #YAML}) or one of the JSON
   * Schemas ({@value #SCHEMA_JSON}); empty for any other name (another process's document, a path,
   * a name that is no resource), which the route answers 404.
   */
  public Optional<ServedFile> file(String name) {
    if (fileName.equals(name)) {
      return read(name).map(bytes -> new ServedFile(YAML, bytes));
    }
    if (name != null && SCHEMA_FILE.matcher(name).matches()) {
      return read(name).map(bytes -> new ServedFile(SCHEMA_JSON, bytes));
    }
    return Optional.empty();
  }

  /** The document's text (UTF-8). */
  public String text() {
    return new String(
        read(fileName).orElseThrow(() -> new IllegalStateException("no resource " + fileName)),
        java.nio.charset.StandardCharsets.UTF_8);
  }

  private static Optional<byte[]> read(String name) {
    byte[] cached = CACHE.get(name);
    if (cached != null) {
      return Optional.of(cached);
    }
    try (InputStream in = ApiDocument.class.getResourceAsStream(RESOURCE_DIR + name)) {
      if (in == null) {
        return Optional.empty();
      }
      byte[] bytes = in.readAllBytes();
      CACHE.put(name, bytes);
      return Optional.of(bytes);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + RESOURCE_DIR + name, e);
    }
  }
}
