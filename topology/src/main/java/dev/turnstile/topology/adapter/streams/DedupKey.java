package dev.turnstile.topology.adapter.streams;

import dev.turnstile.schemas.CloudEventHeaders;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.utils.Bytes;

/**
 * The identity of an event, read from its CloudEvents headers without parsing the value: {@code
 * (ce_source, ce_id)}, unique per CloudEvents 1.0 ("source + id MUST be unique for each distinct
 * event"). Encoded length-prefixed so no pair of strings can collide.
 */
record DedupKey(String source, String id) {

  static Optional<DedupKey> from(Headers headers) {
    String source = HeaderText.of(headers, CloudEventHeaders.SOURCE);
    String id = HeaderText.of(headers, CloudEventHeaders.ID);
    if (source == null || source.isEmpty() || id == null || id.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(new DedupKey(source, id));
  }

  Bytes bytes() {
    byte[] s = source.getBytes(StandardCharsets.UTF_8);
    byte[] i = id.getBytes(StandardCharsets.UTF_8);
    return Bytes.wrap(
        ByteBuffer.allocate(4 + s.length + i.length).putInt(s.length).put(s).put(i).array());
  }
}
