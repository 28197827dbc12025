package dev.turnstile.topology.adapter.streams;

import com.fasterxml.jackson.core.JsonPointer;
import com.fasterxml.jackson.databind.JsonNode;
import dev.turnstile.schemas.CloudEventHeaders;
import dev.turnstile.schemas.RejectionReason;
import dev.turnstile.schemas.ServiceBusHeaders;
import dev.turnstile.schemas.StrictJson;
import dev.turnstile.topology.adapter.streams.Rejections.Refusal;
import dev.turnstile.topology.config.MergeSettings;
import dev.turnstile.topology.domain.merge.MergeVersion;
import dev.turnstile.topology.domain.merge.Patch;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.kafka.clients.producer.internals.BuiltInPartitioner;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;

/**
 * Turns a deduplicated Service Bus message into a {@link MergeInput} keyed by its merge key, or
 * rejects it. It runs before the repartition through {@code merge-inputs.v1}, because the merge key
 * must be known to choose the partition. A message already keyed by its merge key, on the partition
 * that key has (the billing entity's records are keyed by the {@code mergeKey} application
 * property, where the merge key is read too), needs no repartition: its patch goes straight to
 * {@code merge} in this task, which holds that key's merge state ({@code docs/design.md}, "Merge"),
 * and nothing is written to {@code merge-inputs.v1} for it.
 *
 * <p>Merge key: the JSON pointer {@code topology.merge.servicebus.key-pointer} into the body when
 * configured, else application property {@code topology.merge.servicebus.key-property}. Version:
 * explicit (pointer, else property) when configured and present, else {@code ce_sbsequencenumber},
 * else {@code ce_time}, else the record timestamp. Source and event id: {@code ce_source} and
 * {@code ce_id}, already checked by the dedup stage.
 *
 * <p>Rejected: a body over {@code topology.merge.max-document-bytes} ({@code DOCUMENT_TOO_LARGE},
 * checked before parsing), a body that is not a JSON object under {@link StrictJson}'s rules (the
 * same verdict the bridge gives the same bytes over HTTP) or a version header or field that is not
 * a number ({@code NOT_MERGEABLE}), a body that sets a field the closed session owns ({@code
 * FIELD_OWNED_ELSEWHERE}), no merge key ({@code MISSING_MERGE_KEY}).
 */
final class ServiceBusMergeInputProcessor implements Processor<String, byte[], Void, Void> {

  private final MergeSettings settings;
  private final int mergeInputPartitions;
  private ProcessorContext<Void, Void> context;

  /**
   * @param mergeInputPartitions the partition count of {@code merge-inputs.v1} when it equals that
   *     of the record's topic, so that a record keyed by its merge key may be merged in place; 0
   *     sends every patch through {@code merge-inputs.v1}
   */
  ServiceBusMergeInputProcessor(MergeSettings settings, int mergeInputPartitions) {
    this.settings = settings;
    this.mergeInputPartitions = mergeInputPartitions;
  }

  @Override
  public void init(ProcessorContext<Void, Void> context) {
    this.context = context;
  }

  @Override
  public void process(Record<String, byte[]> record) {
    byte[] value = record.value();
    if (value != null && value.length > settings.maxDocumentBytes()) {
      reject(
          record,
          RejectionReason.DOCUMENT_TOO_LARGE,
          "the body has %d bytes, more than the %d allowed"
              .formatted(value.length, settings.maxDocumentBytes()));
      return;
    }
    JsonNode body;
    try {
      body = parseObject(value);
    } catch (StrictJson.MalformedJsonException e) {
      reject(record, RejectionReason.NOT_MERGEABLE, "the body is not JSON: " + e.getMessage());
      return;
    }
    if (body == null) {
      reject(record, RejectionReason.NOT_MERGEABLE, "the body is not a JSON object");
      return;
    }
    Optional<String> owned = ownedElsewhere(body);
    if (owned.isPresent()) {
      reject(
          record,
          RejectionReason.FIELD_OWNED_ELSEWHERE,
          "/"
              + owned.get()
              + " belongs to the closed device session merged under the same key;"
              + " a Service Bus patch may not set or delete it");
      return;
    }
    Optional<String> mergeKey = mergeKey(record.headers(), body);
    if (mergeKey.isEmpty()) {
      reject(record, RejectionReason.MISSING_MERGE_KEY, "no merge key at " + keyLocation());
      return;
    }
    MergeVersion version;
    try {
      version = version(record, body);
    } catch (IllegalArgumentException e) {
      reject(record, RejectionReason.NOT_MERGEABLE, e.getMessage());
      return;
    }
    MergeInput input = new MergeInput(mergeKey.get(), Patch.of(version, body));
    if (inPlace(record, input.mergeKey())) {
      Outputs.LOCAL_MERGE_INPUTS.forward(
          context, record.withValue(new MergeProcessor.Local(input, value)));
    } else {
      Outputs.SERVICEBUS_MERGE_INPUTS.forward(context, input.record(record));
    }
  }

  /**
   * Whether the patch of {@code record} may be merged in this task: the record is keyed by its
   * merge key and sits on the partition {@code merge-inputs.v1} would give that key (Kafka's
   * default partitioner, which this topology's sinks use), so this task is the one that holds the
   * key's merge state. That needs {@code merge-inputs.v1} to have {@code mergeInputPartitions}
   * partitions, as declared: the topology process starts only on topics as declared (a count
   * changed while it runs is logged as an error, to be restarted). Interactive queries need the two
   * topics' counts equal too: {@code merge-store}'s sub-topology has both as sources.
   */
  private boolean inPlace(Record<String, byte[]> record, String mergeKey) {
    if (mergeInputPartitions <= 0 || !mergeKey.equals(record.key())) {
      return false;
    }
    return context
        .recordMetadata()
        .map(
            at ->
                at.partition()
                    == BuiltInPartitioner.partitionForKey(
                        mergeKey.getBytes(StandardCharsets.UTF_8), mergeInputPartitions))
        .orElse(false);
  }

  /** The body as a JSON object (strictly read), or null when it is none or not an object. */
  private static JsonNode parseObject(byte[] value) throws StrictJson.MalformedJsonException {
    if (value == null) {
      return null;
    }
    JsonNode node = StrictJson.senders().readTree(value);
    return node.isObject() ? node : null;
  }

  /**
   * The first top-level member of {@code body} that a closed session writes, when sessions are
   * merged: those fields are the session's (docs/design.md, "Merge", field ownership), whatever
   * version a billing system's patch carries. {@code sessionId} is shared: both sources write the
   * session reference.
   */
  private Optional<String> ownedElsewhere(JsonNode body) {
    if (!settings.sessionsEnabled()) {
      return Optional.empty();
    }
    return SessionMergeInputProcessor.OWNED_FIELDS.stream().filter(body::has).findFirst();
  }

  private Optional<String> mergeKey(Headers headers, JsonNode body) {
    Optional<String> key =
        settings.keyPointer().isPresent()
            ? scalarText(body.at(settings.keyPointer().get()))
            : Optional.ofNullable(
                header(headers, ServiceBusHeaders.property(settings.keyProperty())));
    return key.map(String::trim).filter(k -> !k.isEmpty());
  }

  private String keyLocation() {
    return settings
        .keyPointer()
        .map(p -> "body pointer " + p)
        .orElse("header " + ServiceBusHeaders.property(settings.keyProperty()));
  }

  private MergeVersion version(Record<String, byte[]> record, JsonNode body) {
    Headers headers = record.headers();
    String source = header(headers, CloudEventHeaders.SOURCE);
    String eventId = header(headers, CloudEventHeaders.ID);
    Optional<String> explicit = explicitVersion(headers, body);
    OptionalLong explicitVersion =
        explicit.isPresent()
            ? OptionalLong.of(parseLong(explicit.get(), "version"))
            : OptionalLong.empty();
    String sequence = header(headers, ServiceBusHeaders.SEQUENCE_NUMBER);
    OptionalLong sequenceNumber =
        sequence == null
            ? OptionalLong.empty()
            : OptionalLong.of(parseLong(sequence, ServiceBusHeaders.SEQUENCE_NUMBER));
    return MergeVersion.select(explicitVersion, sequenceNumber, eventTime(record), source, eventId);
  }

  private Optional<String> explicitVersion(Headers headers, JsonNode body) {
    Optional<JsonPointer> pointer = settings.versionPointer();
    if (pointer.isPresent()) {
      return scalarText(body.at(pointer.get()));
    }
    return settings
        .versionProperty()
        .map(name -> header(headers, ServiceBusHeaders.property(name)));
  }

  private static Instant eventTime(Record<String, byte[]> record) {
    String time = header(record.headers(), CloudEventHeaders.TIME);
    if (time == null) {
      return Instant.ofEpochMilli(record.timestamp());
    }
    try {
      return OffsetDateTime.parse(time).toInstant();
    } catch (DateTimeParseException e) {
      throw new IllegalArgumentException("ce_time is not RFC 3339: " + time);
    }
  }

  private static long parseLong(String text, String what) {
    try {
      return Long.parseLong(text.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(what + " is not an integer: " + text);
    }
  }

  /** A string or number as text; objects, arrays, null and missing give empty. */
  private static Optional<String> scalarText(JsonNode node) {
    return node.isTextual() || node.isNumber() ? Optional.of(node.asText()) : Optional.empty();
  }

  private static String header(Headers headers, String name) {
    return HeaderText.of(headers, name);
  }

  private void reject(Record<String, byte[]> record, RejectionReason reason, String detail) {
    // An oversized body is not copied into rejected-events.v1; its topic and offset locate it.
    byte[] original = reason == RejectionReason.DOCUMENT_TOO_LARGE ? null : record.value();
    Rejections.forwardInput(
        context, record, original, new Refusal(Names.SERVICEBUS_MERGE_INPUT, reason, detail));
  }
}
