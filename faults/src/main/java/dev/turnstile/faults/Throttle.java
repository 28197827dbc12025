package dev.turnstile.faults;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * Holds the load back while the pipeline is behind: while the topology's consumer group lags more
 * than {@code maxLag} records summed over every topic it reads (the raw inputs and the topics
 * between its stages), or more than {@code maxBacklog} billing messages wait on Service Bus.
 * Without it the load would outrun the slowest stage, backlogs would grow for the whole run, and a
 * fault's healing time would measure the backlog instead of the fault.
 */
final class Throttle implements AutoCloseable {

  private final Admin admin;
  private final String group;
  private final List<String> inputs;
  private final LongSupplier serviceBusBacklog;
  private final long maxLag;
  private final long maxBacklog;
  private final Thread thread;
  private final Object gate = new Object();
  private volatile boolean open = true;
  private volatile boolean closed;
  private volatile long lag;
  private volatile long backlog;

  Throttle(
      Admin admin,
      String group,
      List<String> inputs,
      LongSupplier serviceBusBacklog,
      long maxLag,
      long maxBacklog) {
    this.admin = admin;
    this.group = group;
    this.inputs = inputs;
    this.serviceBusBacklog = serviceBusBacklog;
    this.maxLag = maxLag;
    this.maxBacklog = maxBacklog;
    this.thread = new Thread(this::run, "throttle");
    thread.setDaemon(true);
    thread.start();
  }

  /** Blocks while the load is held back. */
  void awaitOpen() throws InterruptedException {
    synchronized (gate) {
      while (!open && !closed) {
        gate.wait(1000);
      }
    }
  }

  /** The topology's lag on every topic it reads at the last look, records; -1 when unknown. */
  long lag() {
    return lag;
  }

  /** Billing messages sent and not yet completed at the last look. */
  long backlog() {
    return backlog;
  }

  private void run() {
    while (!closed) {
      long measured = measureLag();
      if (measured >= 0) {
        lag = measured;
      }
      backlog = serviceBusBacklog.getAsLong();
      boolean nowOpen = lag <= maxLag && backlog <= maxBacklog;
      synchronized (gate) {
        open = nowOpen;
        gate.notifyAll();
      }
      Pause.millis(500);
    }
  }

  /** Sum over the input partitions of end offset minus the group's committed offset. */
  long measureLag() {
    try {
      Map<TopicPartition, OffsetAndMetadata> committed =
          admin
              .listConsumerGroupOffsets(group)
              .partitionsToOffsetAndMetadata()
              .get(5, TimeUnit.SECONDS);
      Map<TopicPartition, OffsetSpec> request = new HashMap<>();
      for (var description :
          admin.describeTopics(inputs).allTopicNames().get(5, TimeUnit.SECONDS).values()) {
        description
            .partitions()
            .forEach(
                p ->
                    request.put(
                        new TopicPartition(description.name(), p.partition()),
                        OffsetSpec.latest()));
      }
      Map<TopicPartition, ListOffsetsResultInfo> ends =
          admin.listOffsets(request).all().get(5, TimeUnit.SECONDS);
      long total = 0;
      for (var end : ends.entrySet()) {
        OffsetAndMetadata done = committed.get(end.getKey());
        total += Math.max(0, end.getValue().offset() - (done == null ? 0 : done.offset()));
      }
      return total;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    } catch (Exception e) {
      return -1;
    }
  }

  @Override
  public void close() {
    closed = true;
    synchronized (gate) {
      gate.notifyAll();
    }
  }
}
