package dev.turnstile.topology.adapter.streams;

import dev.turnstile.schemas.RejectedEvent;
import dev.turnstile.schemas.RejectionReason;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;

/**
 * Counts every rejection by reason on its way to {@code rejected-events.v1}: metric {@code
 * rejected-total}, group {@code stream-turnstile-rejections-metrics}, tag {@code
 * turnstile-rejections-id} = the reason code, every code of {@link RejectionReason} from the start.
 * Like every Streams metric it is a monitoring figure: after an exactly-once abort and retry a
 * rejection may be counted twice, never written twice.
 */
final class RejectionCounter implements Processor<String, RejectedEvent, Void, Void> {

  private final Map<String, Sensor> sensors = new HashMap<>();
  private final Output<RejectedEvent> sink;
  private ProcessorContext<Void, Void> context;

  /**
   * @param stage the stage whose rejections this counts
   */
  RejectionCounter(String stage) {
    this.sink = Outputs.rejectionsSink(stage);
  }

  /**
   * Registers a series for every reason code at once, at 0: an alert on a rate of {@code
   * rejected-total} sees nothing at all for a code until its first rejection otherwise.
   */
  @Override
  public void init(ProcessorContext<Void, Void> context) {
    this.context = context;
    for (RejectionReason reason : RejectionReason.values()) {
      sensor(reason.name());
    }
  }

  @Override
  public void process(Record<String, RejectedEvent> record) {
    sensor(record.value().reason().name()).record();
    sink.forward(context, record);
  }

  private Sensor sensor(String reason) {
    return sensors.computeIfAbsent(
        reason,
        r ->
            context
                .metrics()
                .addRateTotalSensor(
                    "turnstile-rejections", r, "rejected", Sensor.RecordingLevel.INFO));
  }
}
