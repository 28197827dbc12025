package dev.turnstile.topology.adapter.streams;

import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;

/** The one way the topology reads a header: the last one of that name, as UTF-8 text. */
final class HeaderText {

  private HeaderText() {}

  /** The last header {@code name} as text; null when absent or without a value. */
  static String of(Headers headers, String name) {
    Header header = headers.lastHeader(name);
    return header == null || header.value() == null
        ? null
        : new String(header.value(), StandardCharsets.UTF_8);
  }

  /** {@link #of} when present and not blank. */
  static Optional<String> nonBlank(Headers headers, String name) {
    String text = of(headers, name);
    return text == null || text.isBlank() ? Optional.empty() : Optional.of(text);
  }
}
