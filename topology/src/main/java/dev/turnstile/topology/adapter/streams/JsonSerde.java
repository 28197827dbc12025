package dev.turnstile.topology.adapter.streams;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.turnstile.schemas.Json;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serializer;

/** A Serde for state-store values: JSON through the contracts' one mapper. */
final class JsonSerde<T> implements Serde<T> {

  private final Class<T> type;
  private final ObjectMapper mapper = Json.mapper();

  JsonSerde(Class<T> type) {
    this.type = type;
  }

  @Override
  public Serializer<T> serializer() {
    return (topic, value) -> value == null ? null : write(value);
  }

  @Override
  public Deserializer<T> deserializer() {
    return (topic, bytes) -> {
      if (bytes == null) {
        return null;
      }
      try {
        return mapper.readValue(bytes, type);
      } catch (IOException e) {
        throw new SerializationException("cannot read " + type.getSimpleName() + " from JSON", e);
      }
    };
  }

  byte[] write(Object value) {
    try {
      return mapper.writeValueAsBytes(value);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
