package dev.turnstile.bench;

import dev.turnstile.schemas.CloudEventHeaders;
import dev.turnstile.schemas.DeviceEvent;
import dev.turnstile.schemas.DeviceEventType;
import dev.turnstile.schemas.Json;
import dev.turnstile.schemas.TopicCatalogue;
import dev.turnstile.topology.TopologyApplication;
import dev.turnstile.topology.config.TopologyConfig;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.Comparator;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.test.TestRecord;

/**
 * Prints what one device event costs in the production topology (dedup, sessions, merge input)
 * relative to a pass-through topology measured in the same run, on fresh state and after many
 * events are remembered. TopologyTestDriver with the real RocksDB stores, one thread, no broker:
 * the figures are per-event processing cost, not end-to-end throughput.
 *
 * <p>Run: {@code ./mvnw -B -q -pl bench -am -Pbench -DskipTests verify -Dbench.args="cost
 * [remembered] [measured] [devices]"}.
 */
final class TopologyCostBenchmark {

  private static final OffsetDateTime T0 = OffsetDateTime.parse("2015-03-02T08:00:00-08:00");

  static void main(String[] args) throws Exception {
    int remembered = args.length > 0 ? Integer.parseInt(args[0]) : 400_000;
    int measured = args.length > 1 ? Integer.parseInt(args[1]) : 40_000;
    int devices = args.length > 2 ? Integer.parseInt(args[2]) : 1_000;
    System.out.printf(
        Locale.ROOT,
        "events measured per run: %,d over %,d devices (Started/Finished pairs)%n",
        measured,
        devices);

    // Warm the JIT on both topologies first, so no measured run pays for compilation.
    run("warm-up: pass-through", true, 0, measured, devices);
    run("warm-up: topology", false, 0, measured, devices);
    double passThrough = run("pass-through (baseline)", true, 0, measured, devices);
    double fresh = run("topology, fresh state", false, 0, measured, devices);
    double loaded =
        run(
            String.format(Locale.ROOT, "topology, %,d events remembered", remembered),
            false,
            remembered,
            measured,
            devices);

    System.out.printf(Locale.ROOT, "%nratios (events/s):%n");
    System.out.printf(Locale.ROOT, "  topology fresh / pass-through   %.3f%n", fresh / passThrough);
    System.out.printf(
        Locale.ROOT, "  topology loaded / pass-through  %.3f%n", loaded / passThrough);
    System.out.printf(
        Locale.ROOT,
        "  topology loaded / fresh         %.3f  (1.0 = cost per event does not grow with state)%n",
        loaded / fresh);
  }

  private static double run(String name, boolean passThrough, int warm, int measured, int devices)
      throws Exception {
    Path stateDir = Files.createTempDirectory("turnstile-bench");
    TopologyConfig config =
        TopologyConfig.of(
            Map.of(
                "kafka.bootstrap.servers", "unused:9092",
                "topology.state-dir", stateDir.toString(),
                "topology.application-id", "bench"));
    Topology topology =
        passThrough ? StreamsCandidate.passThrough(config) : TopologyApplication.topology(config);
    Instant start = Instant.parse("2026-11-30T00:00:00Z");
    try (TopologyTestDriver driver =
        new TopologyTestDriver(topology, TopologyApplication.streamsProperties(config), start)) {
      TestInputTopic<String, byte[]> input =
          driver.createInputTopic(
              config.topic(TopicCatalogue.DEVICE_EVENTS_RAW),
              new StringSerializer(),
              new ByteArraySerializer());
      send(driver, input, 0, warm, devices, start);
      long began = System.nanoTime();
      send(driver, input, warm, measured, devices, start);
      double seconds = (System.nanoTime() - began) / 1e9;
      double rate = measured / seconds;
      System.out.printf(Locale.ROOT, "%-40s %,10.0f events/s%n", name, rate);
      return rate;
    } finally {
      try (Stream<Path> files = Files.walk(stateDir)) {
        files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  private static void send(
      TopologyTestDriver driver,
      TestInputTopic<String, byte[]> input,
      int from,
      int count,
      int devices,
      Instant start)
      throws Exception {
    for (int i = from; i < from + count; i++) {
      if (i % 20_000 == 0) {
        drain(driver);
      }
      int session = i / 2;
      String device = "station-" + (session % devices);
      boolean started = i % 2 == 0;
      DeviceEvent event =
          new DeviceEvent(
              device,
              session + (started ? "-started" : "-finished"),
              started ? DeviceEventType.Started : DeviceEventType.Finished,
              started ? T0 : T0.plusHours(2),
              Integer.toString(session),
              null,
              start);
      RecordHeaders headers = new RecordHeaders();
      headers.add(
          CloudEventHeaders.SOURCE,
          CloudEventHeaders.deviceSource(device).getBytes(StandardCharsets.UTF_8));
      headers.add(CloudEventHeaders.ID, event.eventId().getBytes(StandardCharsets.UTF_8));
      input.pipeInput(
          new TestRecord<>(
              device, Json.mapper().writeValueAsBytes(event), headers, start.plusMillis(i)));
    }
  }

  /**
   * The driver keeps every record the topology produced until a test reads it: read and drop them,
   * or millions of events would fill the heap with outputs nobody looks at.
   */
  private static void drain(TopologyTestDriver driver) {
    for (String topic : driver.producedTopicNames()) {
      driver
          .createOutputTopic(topic, new ByteArrayDeserializer(), new ByteArrayDeserializer())
          .readRecordsToList();
    }
  }

  private TopologyCostBenchmark() {}
}
