package dev.turnstile.testkit.openapi;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/**
 * Reads an OpenAPI document and the JSON Schemas it references from a classpath folder, in the form
 * vertx-openapi takes: every reference absolute (RFC 3986 §5 against the folder's canonical base),
 * every referenced file keyed by its absolute URI.
 */
final class ContractFiles {

  private ContractFiles() {}

  /** The JSON Schemas the document references, keyed by absolute URI, and theirs in turn. */
  static Map<String, JsonObject> referencedFiles(JsonObject contract, String folder, String base) {
    Map<String, JsonObject> files = new LinkedHashMap<>();
    Deque<Object> pending = new ArrayDeque<>(List.of(contract));
    while (!pending.isEmpty()) {
      for (String ref : refs(pending.pop(), new TreeSet<>())) {
        String file = ref.contains("#") ? ref.substring(0, ref.indexOf('#')) : ref;
        if (!file.isEmpty() && file.startsWith(base) && !files.containsKey(file)) {
          JsonObject schema =
              new JsonObject(Buffer.buffer(read(folder + file.substring(base.length()))));
          files.put(file, schema);
          pending.push(schema);
        }
      }
    }
    return files;
  }

  private static Set<String> refs(Object node, Set<String> found) {
    if (node instanceof JsonObject object) {
      for (Map.Entry<String, Object> member : object) {
        if (member.getKey().equals("$ref") && member.getValue() instanceof String ref) {
          found.add(ref);
        } else {
          refs(member.getValue(), found);
        }
      }
    } else if (node instanceof JsonArray array) {
      array.forEach(item -> refs(item, found));
    }
    return found;
  }

  /**
   * The YAML tree with each relative {@code $ref} made absolute against {@code documentUri};
   * mutable, as the library dereferences in place.
   */
  @SuppressWarnings("unchecked")
  static Map<String, Object> absoluteRefs(Map<String, Object> node, URI documentUri) {
    Map<String, Object> copy = new LinkedHashMap<>();
    node.forEach(
        (key, value) -> {
          if (key.equals("$ref") && value instanceof String ref && !ref.startsWith("#")) {
            copy.put(key, documentUri.resolve(ref).toString());
          } else if (value instanceof Map<?, ?> map) {
            copy.put(key, absoluteRefs((Map<String, Object>) map, documentUri));
          } else if (value instanceof List<?> list) {
            copy.put(
                key,
                list.stream()
                    .map(
                        item ->
                            item instanceof Map<?, ?> map
                                ? absoluteRefs((Map<String, Object>) map, documentUri)
                                : item)
                    .collect(Collectors.toCollection(ArrayList::new)));
          } else {
            copy.put(key, value);
          }
        });
    return copy;
  }

  static Map<String, Object> yaml(byte[] bytes) {
    return new Yaml(new SafeConstructor(new LoaderOptions()))
        .load(new String(bytes, StandardCharsets.UTF_8));
  }

  static byte[] read(String resource) {
    try (InputStream in =
        Thread.currentThread().getContextClassLoader().getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException("no resource " + resource + " on the classpath");
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
