package dev.turnstile.testkit.openapi;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonObject;
import io.vertx.json.schema.JsonSchema;
import io.vertx.json.schema.OutputUnit;
import io.vertx.openapi.contract.OpenAPIContract;
import io.vertx.openapi.contract.Operation;
import io.vertx.openapi.mediatype.ContentAnalyserFactory;
import io.vertx.openapi.mediatype.MediaTypeRegistration;
import io.vertx.openapi.mediatype.MediaTypeRegistry;
import io.vertx.openapi.validation.ResponseValidator;
import io.vertx.openapi.validation.ValidatableResponse;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Checks real HTTP answers against an OpenAPI 3.1 document with Vert.x's OpenAPI validator
 * (io.vertx:vertx-openapi): status, declared headers and the body against the schema of its media
 * type, all as the library reads the document. Loading also checks the document itself: the library
 * validates it against the OpenAPI 3.1 schema and every referenced JSON Schema against draft
 * 2020-12, and fails on a {@code $ref} it cannot resolve.
 *
 * <p>The document sits in a classpath folder beside the JSON Schemas it references by relative
 * {@code $ref} ({@code problem.v1.schema.json}). The library resolves only absolute references, so
 * each relative one is first resolved (RFC 3986 §5) against the folder's canonical base, e.g.
 * {@code https://turnstile.dev/schemas/}: the {@code $id} of each schema there, which a wrong file
 * name therefore fails to match.
 *
 * <p>An answer to a path or method the document has no operation for passes only as the document's
 * {@code #/components/responses/NotFound} (404) or {@code MethodNotAllowed} (405).
 */
public final class OpenApiCheck implements AutoCloseable {

  private static final long TIMEOUT_SECONDS = 30;

  private final Vertx vertx;
  private final OpenAPIContract contract;
  private final ResponseValidator validator;

  private OpenApiCheck(Vertx vertx, OpenAPIContract contract) {
    this.vertx = vertx;
    this.contract = contract;
    this.validator = ResponseValidator.create(vertx, contract);
  }

  /**
   * Loads and checks a document.
   *
   * @param folder classpath folder of the document and its schemas, e.g. {@code
   *     dev/turnstile/schemas/}
   * @param base the canonical URI of that folder, ending in {@code /}
   * @param document the document's file name in it
   * @throws IllegalStateException when the document is not valid OpenAPI 3.1 or a reference does
   *     not resolve (the library's message as cause)
   */
  public static OpenApiCheck load(String folder, String base, String document) {
    Vertx vertx = Vertx.vertx();
    try {
      URI documentUri = URI.create(base + document);
      JsonObject contract =
          new JsonObject(
              ContractFiles.absoluteRefs(
                  ContractFiles.yaml(ContractFiles.read(folder + document)), documentUri));
      Map<String, JsonObject> parts = ContractFiles.referencedFiles(contract, folder, base);
      OpenAPIContract built =
          await(
              OpenAPIContract.builder(vertx)
                  .setContract(contract)
                  .setAdditionalContractParts(parts)
                  .mediaTypeRegistry(mediaTypes())
                  .build());
      return new OpenApiCheck(vertx, built);
    } catch (RuntimeException e) {
      vertx.close();
      throw new IllegalStateException(document + " is not a valid OpenAPI 3.1 document", e);
    }
  }

  /** Every operation of the document as {@code METHOD /path/{param}}, sorted. */
  public Set<String> operations() {
    Set<String> operations = new TreeSet<>();
    for (Operation operation : contract.operations()) {
      operations.add(operation.getHttpMethod().name() + " " + operation.getOpenAPIPath());
    }
    return operations;
  }

  /** Checks an answer of a {@link java.net.http.HttpClient}; its request gives method and path. */
  public void check(HttpResponse<byte[]> response) {
    check(
        response.request().method(),
        response.uri().getRawPath(),
        response.statusCode(),
        response.headers().map(),
        response.body());
  }

  /**
   * Checks one answer; an {@link AssertionError} names the request, the status and what the library
   * found wrong.
   *
   * @param path the request path as sent (percent-encoded)
   * @param headers the answer's header fields, names in any case
   * @param body the answer's body, empty or {@code null} for none
   */
  public void check(
      String method, String path, int status, Map<String, List<String>> headers, byte[] body) {
    Map<String, String> fields = new LinkedHashMap<>();
    headers.forEach((name, values) -> fields.put(name, String.join(", ", values)));
    String contentType = header(fields, "content-type");
    boolean hasBody = body != null && body.length > 0;
    String where = method + " " + path + " -> " + status + " " + contentType;
    Operation operation = contract.findOperation(path, HttpMethod.valueOf(method));
    if (operation == null) {
      unrouted(where, status, fields, hasBody ? body : new byte[0]);
      return;
    }
    try {
      await(
          validator.validate(
              ValidatableResponse.create(
                  status,
                  fields,
                  hasBody ? Buffer.buffer(body) : null,
                  hasBody ? contentType : null),
              operation.getOperationId()));
    } catch (IllegalStateException e) {
      throw new AssertionError(
          where + " breaks " + operation.getOperationId() + ": " + message(e) + "\n" + text(body),
          e);
    }
  }

  /** An answer no operation covers: only 404 and 405 as the document's components say. */
  private void unrouted(String where, int status, Map<String, String> fields, byte[] body) {
    String name =
        switch (status) {
          case 404 -> "NotFound";
          case 405 -> "MethodNotAllowed";
          default -> throw new AssertionError(where + ": the document has no operation for it");
        };
    JsonObject response =
        contract
            .getRawContract()
            .getJsonObject("components")
            .getJsonObject("responses")
            .getJsonObject(name);
    if (response == null) {
      throw new AssertionError(where + ": the document has no #/components/responses/" + name);
    }
    JsonObject headers = response.getJsonObject("headers", new JsonObject());
    for (String header : headers.fieldNames()) {
      if (header.startsWith("__")) {
        continue; // the library's annotations of a resolved reference
      }
      String value = header(fields, header.toLowerCase(java.util.Locale.ROOT));
      JsonObject declared = headers.getJsonObject(header);
      if (value == null) {
        // OpenAPI 3.1: a response header is optional unless it says required.
        if (declared.getBoolean("required", false)) {
          throw new AssertionError(where + ": no " + header + " header, as " + name + " requires");
        }
        continue;
      }
      schemaCheck(where, declared.getJsonObject("schema"), value);
    }
    String contentType = header(fields, "content-type");
    JsonObject media = response.getJsonObject("content").getJsonObject(contentType);
    if (media == null) {
      throw new AssertionError(where + ": " + name + " has no content " + contentType);
    }
    Object json = io.vertx.core.json.Json.decodeValue(Buffer.buffer(body));
    schemaCheck(where + " " + name, media.getJsonObject("schema"), json);
  }

  private void schemaCheck(String where, JsonObject schema, Object value) {
    OutputUnit result =
        contract.getSchemaRepository().validator(JsonSchema.of(schema)).validate(value);
    if (!result.getValid()) {
      throw new AssertionError(where + ": " + result.getErrors() + "\n" + value);
    }
  }

  private static String header(Map<String, String> fields, String lowerCaseName) {
    for (Map.Entry<String, String> field : fields.entrySet()) {
      if (field.getKey().equalsIgnoreCase(lowerCaseName)) {
        return field.getValue();
      }
    }
    return null;
  }

  /**
   * The media types Turnstile's documents use: JSON (the library's), problem and schema documents
   * read as JSON, the Prometheus text and YAML read as UTF-8 text (a string schema). Registered
   * before the library's text/plain, which would take the Prometheus type and hand a schema the raw
   * buffer.
   */
  private static MediaTypeRegistry mediaTypes() {
    return MediaTypeRegistry.createEmpty()
        .register(
            new NamedMediaTypes(
                ContentAnalyserFactory.json(),
                "application/problem+json",
                "application/schema+json"))
        .register(
            new NamedMediaTypes(
                TextAnalyser::new, "application/yaml", "text/plain; version=0.0.4; charset=utf-8"))
        .register(MediaTypeRegistration.APPLICATION_JSON);
  }

  private static <T> T await(Future<T> future) {
    try {
      return future
          .toCompletionStage()
          .toCompletableFuture()
          .get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      throw new IllegalStateException(message(e.getCause()), e.getCause());
    } catch (TimeoutException e) {
      throw new IllegalStateException("no result within " + TIMEOUT_SECONDS + " s", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static String message(Throwable e) {
    Throwable cause = e.getCause() != null && e.getMessage() == null ? e.getCause() : e;
    return cause.getClass().getSimpleName() + ": " + cause.getMessage();
  }

  private static String text(byte[] body) {
    if (body == null) {
      return "(no body)";
    }
    String text = new String(body, StandardCharsets.UTF_8);
    return text.length() > 2000 ? text.substring(0, 2000) + "..." : text;
  }

  @Override
  public void close() {
    try {
      vertx
          .close()
          .toCompletionStage()
          .toCompletableFuture()
          .get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException e) {
      // the Vert.x instance holds no resource a test relies on once it is closed
    }
  }
}
