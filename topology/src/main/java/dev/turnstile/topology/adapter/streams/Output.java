package dev.turnstile.topology.adapter.streams;

import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;

/**
 * A processor's output to one named child (a sink or a processor), typed by the value that child
 * reads. Kafka Streams gives a processor one forward type for all its children; Turnstile's stages
 * send different types to different children (parsed events on, rejections to their counter), so
 * each child has its own {@code Output}, declared once in {@link Outputs}. {@link
 * TurnstileTopology} adds every sink with a {@code Serializer<V>} and every processor child with a
 * {@code ProcessorSupplier<String, V, ...>} of the same {@code Output<V>}, so sending a child a
 * type it does not read fails to compile. Processors declare {@code ProcessorContext<Void, Void>}:
 * a forward that goes around their outputs does not compile either.
 *
 * @param child the child's name ({@link Names})
 * @param <V> the value the child reads
 */
record Output<V>(String child) {

  /** Sends {@code record} to this output's child, from the processor that owns {@code context}. */
  void forward(ProcessorContext<Void, Void> context, Record<String, V> record) {
    // The one unchecked step: the child's type was checked against V where the topology was built.
    @SuppressWarnings({"unchecked", "rawtypes"})
    ProcessorContext<String, V> typed = (ProcessorContext) context;
    typed.forward(record, child);
  }
}
