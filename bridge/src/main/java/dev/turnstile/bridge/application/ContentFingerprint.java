package dev.turnstile.bridge.application;

import com.fasterxml.jackson.databind.JsonNode;
import dev.turnstile.bridge.port.in.AcceptDeviceEventUseCase.AcceptDeviceEventCommand;
import dev.turnstile.schemas.Sha256;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * SHA-256 of an event's content in a canonical form: object members sorted by name, no whitespace,
 * attribute values as sent, {@code occurredAt} as the date, time and offset it names (what is
 * written to Kafka). Two requests that differ only in member order, spacing or the spelling of the
 * same time ({@code 15:40:26Z}, {@code 15:40:26.000z}) have the same fingerprint; any other
 * difference (a value, a number's digits, the offset) changes it.
 */
final class ContentFingerprint {

  private ContentFingerprint() {}

  static String of(AcceptDeviceEventCommand command) {
    StringBuilder canonical = new StringBuilder();
    canonical.append(command.type()).append('\n');
    canonical.append(command.occurredAt().toString()).append('\n');
    canonical.append(command.sessionRef()).append('\n');
    append(command.attributes(), canonical);
    return Sha256.hex(canonical.toString().getBytes(StandardCharsets.UTF_8));
  }

  private static void append(JsonNode node, StringBuilder out) {
    if (node == null) {
      out.append("absent");
    } else if (node.isObject()) {
      List<String> names = new ArrayList<>();
      node.fieldNames().forEachRemaining(names::add);
      Collections.sort(names);
      out.append('{');
      for (int i = 0; i < names.size(); i++) {
        if (i > 0) {
          out.append(',');
        }
        out.append(quoted(names.get(i))).append(':');
        append(node.get(names.get(i)), out);
      }
      out.append('}');
    } else if (node.isArray()) {
      out.append('[');
      for (int i = 0; i < node.size(); i++) {
        if (i > 0) {
          out.append(',');
        }
        append(node.get(i), out);
      }
      out.append(']');
    } else {
      // Scalars by their JSON text: a DecimalNode keeps its scale, so 7.5 and 7.50 differ.
      out.append(node.toString());
    }
  }

  private static String quoted(String name) {
    return com.fasterxml.jackson.databind.node.TextNode.valueOf(name).toString();
  }
}
