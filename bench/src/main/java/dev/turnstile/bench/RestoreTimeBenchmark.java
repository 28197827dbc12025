package dev.turnstile.bench;

import dev.turnstile.runtime.topics.TopicSpec;
import dev.turnstile.schemas.CloudEventHeaders;
import dev.turnstile.schemas.DeviceEvent;
import dev.turnstile.schemas.DeviceEventType;
import dev.turnstile.schemas.Json;
import dev.turnstile.schemas.TopicCatalogue;
import dev.turnstile.testkit.EmbeddedKafka;
import dev.turnstile.topology.TopologyProcess;
import dev.turnstile.topology.config.TopologyConfig;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * How long a topology pod whose state directory is empty (a new {@code emptyDir}) takes to become
 * ready when its stores remember {@code events} event ids, with and without Kafka Streams' {@code
 * enable.transactional.statestores}. For each mode, on one in-process broker: the catalogue's
 * topics under their own prefix, {@code events} device events (Started/Finished pairs over {@code
 * devices} stations) written to {@code device-events.raw.v1}, the production topology run until it
 * has committed all of them, then a second process started on an empty state directory, timed from
 * start to ready (Kafka Streams RUNNING, topics as declared): the changelog restore. A clean
 * restart on the kept directory is timed too, for comparison. The restore is what the topology's
 * startup probe must allow for.
 *
 * <p>Run: {@code ./mvnw -B -q -pl bench -am -Pbench -DskipTests verify -Dbench.args="restore"}
 * (options {@code --events}, default 1000000, and {@code --devices}, default 1000). It measures
 * whatever store layout the topology has, so it can be re-run as that changes; absolute times
 * depend on the machine, the ratio between the modes much less.
 */
public final class RestoreTimeBenchmark {

  private static final OffsetDateTime T0 = OffsetDateTime.parse("2015-03-02T08:00:00-08:00");

  record Result(
      String mode,
      long changelogRecords,
      double buildSeconds,
      double restoreSeconds,
      double restartSeconds) {}

  public static void main(String[] args) throws Exception {
    int events = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
    int devices = args.length > 1 ? Integer.parseInt(args[1]) : 1_000;
    Path home = Files.createTempDirectory("turnstile-restore");
    System.out.printf(
        Locale.ROOT,
        "restore time: %,d remembered events over %,d devices, one in-process broker%n",
        events,
        devices);
    List<Result> results = new ArrayList<>();
    try (EmbeddedKafka kafka = EmbeddedKafka.start(home.resolve("kafka"))) {
      for (boolean transactional : List.of(false, true)) {
        results.add(measure(kafka, home, transactional, events, devices));
      }
    } finally {
      try (java.util.stream.Stream<Path> files = Files.walk(home)) {
        files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
    System.out.printf(
        Locale.ROOT,
        "%n%-32s %16s %12s %16s %16s%n",
        "enable.transactional.statestores",
        "changelog records",
        "build (s)",
        "restore, empty dir (s)",
        "restart, kept dir (s)");
    for (Result r : results) {
      System.out.printf(
          Locale.ROOT,
          "%-32s %,16d %12.1f %16.1f %16.1f%n",
          r.mode(),
          r.changelogRecords(),
          r.buildSeconds(),
          r.restoreSeconds(),
          r.restartSeconds());
    }
    System.out.printf(
        Locale.ROOT,
        "%nratio restore time transactional / not: %.2f%n",
        results.get(1).restoreSeconds() / results.get(0).restoreSeconds());
  }

  private static Result measure(
      EmbeddedKafka kafka, Path home, boolean transactional, int events, int devices)
      throws Exception {
    String mode = transactional ? "true" : "false";
    String prefix = "restore-" + mode + ".";
    kafka.createTopics(
        TopicSpec.catalogue(prefix, (short) 1).stream().map(TopicSpec::toNewTopic).toList());
    produce(kafka.bootstrapServers(), prefix, events, devices);

    long started = System.nanoTime();
    Path kept = home.resolve("state-" + mode + "-kept");
    TopologyConfig build = config(kafka, prefix, kept, transactional);
    try (TopologyProcess process = TopologyProcess.start(build)) {
      await("ready", process::isReady, Duration.ofMinutes(5));
      await(
          "all events committed",
          () -> committed(kafka, build.applicationId()) >= events,
          Duration.ofMinutes(30));
    }
    double buildSeconds = (System.nanoTime() - started) / 1e9;
    long changelog = changelogRecords(kafka, build.applicationId());

    double restore =
        timeToReady(config(kafka, prefix, home.resolve("state-" + mode + "-empty"), transactional));
    double restart = timeToReady(config(kafka, prefix, kept, transactional));
    System.out.printf(
        Locale.ROOT,
        "transactional=%s: built in %.1f s, %,d changelog records, restore %.1f s, restart %.1f s%n",
        mode,
        buildSeconds,
        changelog,
        restore,
        restart);
    return new Result(mode, changelog, buildSeconds, restore, restart);
  }

  private static double timeToReady(TopologyConfig config) throws Exception {
    long started = System.nanoTime();
    try (TopologyProcess process = TopologyProcess.start(config)) {
      await("ready", process::isReady, Duration.ofMinutes(30));
      return (System.nanoTime() - started) / 1e9;
    }
  }

  private static TopologyConfig config(
      EmbeddedKafka kafka, String prefix, Path stateDir, boolean transactional) {
    Map<String, String> values = new HashMap<>();
    values.put("kafka.bootstrap.servers", kafka.bootstrapServers());
    values.put("topic.prefix", prefix);
    values.put("topology.application-id", prefix + "topology");
    values.put("topology.state-dir", stateDir.toString());
    values.put("topology.num-standby-replicas", "0");
    values.put("topology.http.host", "127.0.0.1");
    values.put("topology.http.port", "0");
    values.put("topology.topics.check-interval-ms", "1000");
    values.put("kafka.streams.enable.transactional.statestores", Boolean.toString(transactional));
    return TopologyConfig.of(values);
  }

  private static void produce(String bootstrap, String prefix, int events, int devices)
      throws Exception {
    Map<String, Object> config = new HashMap<>();
    config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    config.put(ProducerConfig.ACKS_CONFIG, "all");
    config.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
    config.put(ProducerConfig.LINGER_MS_CONFIG, 20);
    config.put(ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024);
    String topic = TopicCatalogue.DEVICE_EVENTS_RAW.name(prefix);
    Instant received = Instant.now();
    try (KafkaProducer<String, byte[]> producer =
        new KafkaProducer<>(config, new StringSerializer(), new ByteArraySerializer())) {
      for (int i = 0; i < events; i++) {
        int session = i / 2;
        String device = "station-" + (session % devices);
        boolean start = i % 2 == 0;
        DeviceEvent event =
            new DeviceEvent(
                device,
                session + (start ? "-started" : "-finished"),
                start ? DeviceEventType.Started : DeviceEventType.Finished,
                start ? T0 : T0.plusHours(2),
                Integer.toString(session),
                null,
                received);
        ProducerRecord<String, byte[]> record =
            new ProducerRecord<>(topic, device, Json.mapper().writeValueAsBytes(event));
        record
            .headers()
            .add(
                CloudEventHeaders.SOURCE,
                CloudEventHeaders.deviceSource(device).getBytes(StandardCharsets.UTF_8))
            .add(CloudEventHeaders.ID, event.eventId().getBytes(StandardCharsets.UTF_8));
        producer.send(record);
      }
      producer.flush();
    }
  }

  private static long committed(EmbeddedKafka kafka, String group) {
    try (Admin admin = kafka.admin()) {
      Map<TopicPartition, OffsetAndMetadata> offsets =
          admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get();
      return offsets.entrySet().stream()
          .filter(e -> e.getKey().topic().endsWith(TopicCatalogue.DEVICE_EVENTS_RAW.baseName()))
          .mapToLong(e -> e.getValue() == null ? 0 : e.getValue().offset())
          .sum();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    } catch (java.util.concurrent.ExecutionException e) {
      return -1;
    }
  }

  /** Records in the application's changelog topics: what an empty state directory restores. */
  private static long changelogRecords(EmbeddedKafka kafka, String applicationId) throws Exception {
    try (Admin admin = kafka.admin()) {
      Set<String> changelogs =
          admin.listTopics().names().get().stream()
              .filter(n -> n.startsWith(applicationId + "-") && n.endsWith("-changelog"))
              .collect(Collectors.toSet());
      Map<String, TopicDescription> described =
          admin.describeTopics(changelogs).allTopicNames().get();
      Map<TopicPartition, OffsetSpec> request = new HashMap<>();
      described.forEach(
          (name, d) ->
              d.partitions()
                  .forEach(
                      p ->
                          request.put(
                              new TopicPartition(name, p.partition()), OffsetSpec.latest())));
      Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> ends =
          admin.listOffsets(request).all().get();
      return ends.values().stream()
          .mapToLong(ListOffsetsResult.ListOffsetsResultInfo::offset)
          .sum();
    }
  }

  private static void await(String what, BooleanSupplier condition, Duration timeout)
      throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("not " + what + " within " + timeout);
      }
      TimeUnit.MILLISECONDS.sleep(100);
    }
  }

  private RestoreTimeBenchmark() {}
}
