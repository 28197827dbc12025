package dev.turnstile.topology.adapter.streams;

import dev.turnstile.schemas.RejectedEvent;
import dev.turnstile.schemas.RejectionReason;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.streams.errors.DeserializationExceptionHandler;
import org.apache.kafka.streams.errors.ErrorHandlerContext;
import org.apache.kafka.streams.errors.ProcessingExceptionHandler;
import org.apache.kafka.streams.errors.ProductionExceptionHandler;
import org.apache.kafka.streams.processor.api.Record;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What Kafka Streams does with a record a stage could not handle: it writes a {@code
 * rejected-events.v1} record in the same transaction (the handlers' dead-letter records, KIP-1034)
 * and goes on, so no record can stop a stream thread or come back to fail again after a restart.
 *
 * <ul>
 *   <li>Processing (KIP-1033): a processor threw. Rules refuse input with a reason inside the
 *       stages, before the state it would change is written (post-merge refuses a result after the
 *       merge state that produced it is written: that state stands); an exception reaching here is
 *       a bug, logged at ERROR with the record's place: {@code PROCESSING_FAILED}, with the
 *       original value.
 *   <li>Production: Kafka refused an output record (larger than allowed, or invalid): {@code
 *       OUTPUT_TOO_LARGE} for the input that produced it. A retriable error is retried. A refused
 *       changelog or repartition record fails the client instead: skipping it would make the store
 *       and its changelog disagree, which is worse than stopping (every store value is bounded so
 *       that this cannot happen).
 *   <li>Deserialization: the sources read keys as strings and values as bytes, which cannot fail;
 *       should they, {@code MALFORMED_EVENT}.
 * </ul>
 *
 * <p>Configured with {@value #REJECTED_TOPIC}, the full name of {@code rejected-events.v1}. Kafka
 * Streams counts each such record in its task metric {@code dropped-records-total}.
 */
public final class RejectingExceptionHandler
    implements ProcessingExceptionHandler,
        ProductionExceptionHandler,
        DeserializationExceptionHandler {

  /** Streams configuration key: where the dead-letter records go. */
  public static final String REJECTED_TOPIC = "turnstile.rejected.topic";

  private static final Logger LOG = LoggerFactory.getLogger(RejectingExceptionHandler.class);

  private String rejectedTopic;

  @Override
  public void configure(Map<String, ?> configs) {
    rejectedTopic =
        Objects.requireNonNull(
            (String) configs.get(REJECTED_TOPIC), REJECTED_TOPIC + " must be configured");
  }

  @Override
  public ProcessingExceptionHandler.Response handleError(
      ErrorHandlerContext context, Record<?, ?> record, Exception exception) {
    LOG.error(
        "stage {} failed on {}-{}@{}; the record goes to rejected-events as PROCESSING_FAILED",
        context.processorNodeId(),
        context.topic(),
        context.partition(),
        context.offset(),
        exception);
    return ProcessingExceptionHandler.Response.resume(
        List.of(
            rejection(
                context,
                RejectionReason.PROCESSING_FAILED,
                "the stage failed on this record: " + exception,
                context.sourceRawValue())));
  }

  @Override
  public ProductionExceptionHandler.Response handleError(
      ErrorHandlerContext context, ProducerRecord<byte[], byte[]> record, Exception exception) {
    if (exception instanceof RetriableException) {
      return ProductionExceptionHandler.Response.retry();
    }
    if (isInternal(record.topic())) {
      LOG.error(
          "Kafka refused a record for internal topic {}; stopping, because skipping it would make"
              + " a store and its changelog disagree",
          record.topic(),
          exception);
      return ProductionExceptionHandler.Response.fail();
    }
    LOG.warn(
        "Kafka refused an output record for {} produced from {}-{}@{}: {}",
        record.topic(),
        context.topic(),
        context.partition(),
        context.offset(),
        exception.toString());
    return ProductionExceptionHandler.Response.resume(
        List.of(
            rejection(
                context,
                RejectionReason.OUTPUT_TOO_LARGE,
                "Kafka refused the output record for "
                    + record.topic()
                    + " ("
                    + size(record)
                    + " bytes): "
                    + exception.getMessage(),
                null)));
  }

  @Override
  public ProductionExceptionHandler.Response handleSerializationError(
      ErrorHandlerContext context,
      ProducerRecord record,
      Exception exception,
      SerializationExceptionOrigin origin) {
    return ProductionExceptionHandler.Response.resume(
        List.of(
            rejection(
                context,
                RejectionReason.OUTPUT_TOO_LARGE,
                "the output record could not be serialised: " + exception,
                null)));
  }

  @Override
  public DeserializationExceptionHandler.Response handleError(
      ErrorHandlerContext context, ConsumerRecord<byte[], byte[]> record, Exception exception) {
    return DeserializationExceptionHandler.Response.resume(
        List.of(
            rejection(
                context,
                RejectionReason.MALFORMED_EVENT,
                "the record could not be deserialised: " + exception,
                record.value())));
  }

  private ProducerRecord<byte[], byte[]> rejection(
      ErrorHandlerContext context, RejectionReason reason, String detail, byte[] original) {
    String key =
        context.sourceRawKey() == null
            ? null
            : new String(context.sourceRawKey(), java.nio.charset.StandardCharsets.UTF_8);
    String stage = context.processorNodeId() == null ? "kafka-streams" : context.processorNodeId();
    RejectedEvent rejected =
        new RejectedEvent(
            reason,
            detail,
            stage,
            key,
            HeaderText.of(context.headers(), dev.turnstile.schemas.CloudEventHeaders.ID),
            context.topic(),
            context.topic() == null ? null : context.partition(),
            context.topic() == null ? null : context.offset(),
            Instant.now(),
            Rejections.originalJson(original),
            Rejections.originalJson(original) == null ? Rejections.originalBase64(original) : null);
    String id = stage + "/" + context.topic() + "/" + context.partition() + "/" + context.offset();
    Record<String, byte[]> out = Rejections.record(rejected, id, context.timestamp());
    return new ProducerRecord<>(
        rejectedTopic, null, out.timestamp(), context.sourceRawKey(), out.value(), out.headers());
  }

  private static boolean isInternal(String topic) {
    return topic.endsWith("-changelog") || topic.endsWith("-repartition");
  }

  private static int size(ProducerRecord<byte[], byte[]> record) {
    return (record.key() == null ? 0 : record.key().length)
        + (record.value() == null ? 0 : record.value().length)
        + Arrays.stream(record.headers().toArray())
            .mapToInt(h -> h.value() == null ? 0 : h.value().length)
            .sum();
  }
}
