package dev.turnstile.topology.adapter.streams;

import dev.turnstile.topology.domain.dedup.FirstSeen;
import org.apache.kafka.streams.processor.api.Record;

/**
 * The Service Bus dedup stage passes the body on as it is (the merge-input stage reads it); its
 * content is the body's bytes: a redelivered message carries the same body.
 */
final class ServiceBusMessageReader implements EventDedupProcessor.Reader<byte[]> {

  private static final byte[] NONE = new byte[0];

  @Override
  public byte[] read(Record<String, byte[]> record) {
    return record.value();
  }

  @Override
  public long fingerprint(byte[] value, byte[] raw) {
    return FirstSeen.fingerprint(raw == null ? NONE : raw);
  }
}
