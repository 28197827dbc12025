package dev.turnstile.bridge.application;

import com.fasterxml.jackson.databind.JsonNode;
import dev.turnstile.bridge.port.in.AcceptDeviceEventUseCase.AcceptDeviceEventCommand;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * An event's content as a {@link Digest128}, over a canonical form: object members sorted by name,
 * attribute values as sent (a string's characters, a number's JSON text), {@code occurredAt} as the
 * date, time and offset it names (what is written to Kafka). Two requests that differ only in
 * member order, spacing, escapes or the spelling of the same time ({@code 15:40:26Z}, {@code
 * 15:40:26.000z}) have the same fingerprint; any other difference (a value, a number's digits, the
 * offset) changes it. Fed field by field into the digest, no text is built.
 */
final class ContentFingerprint {

  private ContentFingerprint() {}

  static Digest128 of(AcceptDeviceEventCommand command) {
    Digest128.Builder canonical = Digest128.Builder.get();
    canonical.text(command.type().name());
    OffsetDateTime occurredAt = command.occurredAt();
    canonical
        .number(occurredAt.toLocalDateTime().toEpochSecond(occurredAt.getOffset()))
        .number(occurredAt.getNano())
        .number(occurredAt.getOffset().getTotalSeconds());
    if (command.sessionRef() == null) {
      canonical.tag('-');
    } else {
      canonical.tag('s').text(command.sessionRef());
    }
    append(command.attributes(), canonical);
    return canonical.digest();
  }

  private static void append(JsonNode node, Digest128.Builder out) {
    if (node == null) {
      out.tag('-');
    } else if (node.isObject()) {
      List<String> names = new ArrayList<>(node.size());
      node.fieldNames().forEachRemaining(names::add);
      Collections.sort(names);
      out.tag('{').number(names.size());
      for (String name : names) {
        out.text(name);
        append(node.get(name), out);
      }
    } else if (node.isArray()) {
      out.tag('[').number(node.size());
      for (JsonNode item : node) {
        append(item, out);
      }
    } else if (node.isTextual()) {
      out.tag('"').text(node.textValue());
    } else if (node.isNumber()) {
      // The number's JSON text: a DecimalNode keeps its scale, so 7.5 and 7.50 differ.
      out.tag('#').text(node.asText());
    } else if (node.isBoolean()) {
      out.tag(node.booleanValue() ? 't' : 'f');
    } else if (node.isNull()) {
      out.tag('0');
    } else {
      out.tag('?').text(node.toString());
    }
  }
}
