package dev.turnstile.runtime.http;

import dev.turnstile.schemas.ApiDocument;
import io.vertx.core.buffer.Buffer;
import io.vertx.ext.web.Route;
import io.vertx.ext.web.Router;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * What both processes' HTTP servers do with their OpenAPI document: serve it, and say which
 * operations their router has, so that a test can hold the document to exactly those.
 */
public final class ApiDocumentRoutes {

  private ApiDocumentRoutes() {}

  /**
   * Serves {@code document} and the JSON Schemas it references at {@value ApiDocument#ROUTE}
   * ({@code GET} only, no authentication: like the probes). Any other file name goes on to the
   * router's 404.
   */
  public static void mount(Router router, ApiDocument document) {
    router
        .get(ApiDocument.ROUTE)
        .handler(
            ctx ->
                document
                    .file(ctx.pathParam("file"))
                    .ifPresentOrElse(
                        file ->
                            ctx.response()
                                .putHeader("Content-Type", file.contentType())
                                .end(Buffer.buffer(file.bytes())),
                        ctx::next));
  }

  /**
   * Every route of {@code router} as {@code METHOD /path/{param}} (OpenAPI's path template form),
   * sorted; a route without methods as {@code ANY /path}. A route for every request (no path, no
   * method, such as {@link ConnectionReuse}'s) is no operation and is left out.
   *
   * @param regexTemplates the template of each route declared by a regular expression (whose path
   *     Vert.x does not know), e.g. a path with a colon in a segment
   */
  public static List<String> operations(Router router, Map<Route, String> regexTemplates) {
    Set<String> operations = new TreeSet<>();
    for (Route route : router.getRoutes()) {
      boolean everyRequest =
          route.getPath() == null
              && !route.isRegexPath()
              && (route.methods() == null || route.methods().isEmpty());
      if (everyRequest) {
        continue;
      }
      String path =
          route.getPath() != null
              ? route.getPath()
              : regexTemplates.getOrDefault(route, "(no path template)");
      String template = path.replaceAll("/:([A-Za-z0-9_]+)", "/{$1}");
      if (route.methods() == null || route.methods().isEmpty()) {
        operations.add("ANY " + template);
      } else {
        route.methods().forEach(method -> operations.add(method.name() + " " + template));
      }
    }
    return List.copyOf(operations);
  }
}
