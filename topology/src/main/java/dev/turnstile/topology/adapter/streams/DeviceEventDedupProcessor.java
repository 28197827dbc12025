package dev.turnstile.topology.adapter.streams;

import dev.turnstile.schemas.CloudEventHeaders;
import dev.turnstile.schemas.RejectionReason;
import dev.turnstile.topology.adapter.streams.Rejections.Refusal;
import dev.turnstile.topology.domain.dedup.FirstSeen;
import java.time.Duration;
import java.util.Optional;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;

/**
 * The device path's dedup stage (docs/design.md, "Dedup"): forwards the first occurrence of each
 * device event to {@code device-session}, parsed, and drops later copies without parsing them.
 *
 * <p>Identity is {@code (deviceId, eventId)}: the record key and its {@code ce_id} header, whose
 * {@code ce_source} must name the same device. A copy is found through {@code device-event-index}
 * whatever {@code sessionRef} or content it carries ({@link DeviceState#seen}) and judged by {@link
 * FirstSeen#judge} on the fingerprint of its bytes ({@link DeviceEventReader#fingerprint}): the
 * same content is dropped and counted ({@code duplicates-total}), other content is dropped, counted
 * apart ({@code duplicate-conflicts-total}) and written to {@code rejected-events.v1} as {@code
 * DUPLICATE_CONFLICT} with both fingerprints. This stage writes nothing: {@code device-session}
 * remembers the event in the same write that applies it.
 */
final class DeviceEventDedupProcessor implements Processor<String, byte[], Void, Void> {

  private final Duration dedupRetention;
  private final Duration recordRetention;
  private final int maxRecordBytes;
  private final DeviceEventReader reader = new DeviceEventReader();
  private ProcessorContext<Void, Void> context;
  private DeviceState state;
  private DuplicateSensors sensors;

  DeviceEventDedupProcessor(Duration dedupRetention, Duration recordRetention, int maxRecordBytes) {
    this.dedupRetention = dedupRetention;
    this.recordRetention = recordRetention;
    this.maxRecordBytes = maxRecordBytes;
  }

  @Override
  public void init(ProcessorContext<Void, Void> context) {
    this.context = context;
    this.state = DeviceState.of(context, recordRetention, dedupRetention, maxRecordBytes);
    this.sensors = new DuplicateSensors(context, Names.DEVICE_EVENT_DEDUP);
  }

  @Override
  public void process(Record<String, byte[]> record) {
    String device = record.key();
    String source = HeaderText.of(record.headers(), CloudEventHeaders.SOURCE);
    String id = HeaderText.of(record.headers(), CloudEventHeaders.ID);
    if (source == null || source.isEmpty() || id == null || id.isEmpty()) {
      reject(
          record,
          RejectionReason.MISSING_EVENT_ID,
          "the record has no ce_source or ce_id header, so it cannot be deduplicated");
      return;
    }
    if (device == null || !source.equals(CloudEventHeaders.deviceSource(device))) {
      reject(
          record,
          RejectionReason.MALFORMED_EVENT,
          "not a device-event.v1: ce_source " + source + " does not name the record key's device");
      return;
    }
    long now = Stamps.now(context, record);
    long fingerprint = DeviceEventReader.fingerprint(record.value());
    Optional<FirstSeen> remembered = state.seen(device, id, now);
    switch (FirstSeen.judge(remembered, fingerprint)) {
      case FIRST -> forwardFirst(record, id, fingerprint);
      case DUPLICATE -> sensors.duplicate(source, id, remembered.get(), record.timestamp());
      case CONFLICT -> {
        String detail = sensors.conflict(source, id, remembered.get(), fingerprint);
        reject(record, RejectionReason.DUPLICATE_CONFLICT, detail);
      }
    }
  }

  private void forwardFirst(Record<String, byte[]> record, String id, long fingerprint) {
    DeviceEventReader.Read read;
    try {
      read = reader.read(record, id, fingerprint);
    } catch (EventDedupProcessor.UnreadableRecordException e) {
      reject(record, e.reason, e.getMessage());
      return;
    }
    Outputs.FIRST_DEVICE_EVENTS.forward(context, record.withValue(read));
  }

  private void reject(Record<String, byte[]> record, RejectionReason reason, String detail) {
    Rejections.forwardInput(
        context, record, record.value(), new Refusal(Names.DEVICE_EVENT_DEDUP, reason, detail));
  }
}
