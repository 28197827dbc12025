package dev.turnstile.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.turnstile.schemas.DeviceSessionEvent;
import dev.turnstile.schemas.DeviceSessionEventType;
import dev.turnstile.schemas.Json;
import dev.turnstile.schemas.TopicCatalogue;
import dev.turnstile.topology.TopologyApplication;
import dev.turnstile.topology.config.TopologyConfig;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.streams.KafkaStreams;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A second topology pod joins while stations are sending and the first one then goes away: its
 * tasks move, the newcomer restores their state from the changelogs (it has an empty state
 * directory, as a fresh Kubernetes pod does), and every session still appears exactly once.
 */
class TopologyFailoverIT {

  /** The second pod's empty state directory, as a fresh pod's emptyDir; JUnit deletes it. */
  @TempDir static Path podB;

  static LocalStack stack;
  static List<ChargingSession> sample;

  @BeforeAll
  static void start() throws InterruptedException {
    stack = LocalStack.start(0, Map.of("bridge.duplicate-cache.size", "0"));
    sample =
        EvChargingDataset.read(Path.of("..", TurnstileCli.DEFAULT_DATA.toString())).subList(0, 300);
  }

  @AfterAll
  static void stop() {
    stack.close();
  }

  @Test
  void tasksMovingToANewPodMidStreamLoseAndDoubleNothing() throws Exception {
    Demo demo =
        new Demo(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
    Replayer.Plan plan = new Replayer.Plan(3L, 0.3, 0.3, 4);
    demo.replay(stack, sample.subList(0, 150), plan);

    // Stations keep sending while the second pod joins and the first one leaves.
    CompletableFuture<Replayer.Report> duringFailover =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return demo.replay(stack, sample.subList(150, 200), plan);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
              }
            });
    try (TopologyApplication newcomer = TopologyApplication.start(secondPod())) {
      await()
          .atMost(Duration.ofSeconds(90))
          .until(() -> newcomer.state() == KafkaStreams.State.RUNNING);
      stack.topology().close();
      assertThat(duringFailover.get().failed()).isZero();
      await()
          .atMost(Duration.ofSeconds(90))
          .until(() -> newcomer.state() == KafkaStreams.State.RUNNING);

      // Rows 100..200 were all sent before: every event of them is a resend that only the state
      // the newcomer restored from the changelogs (dedup ids, ended sessions) can recognise.
      Replayer.Report after = demo.replay(stack, sample.subList(100, 300), plan);
      assertThat(after.failed()).isZero();

      List<DeviceSessionEvent> events = sessionEvents(600);
      Map<DeviceSessionEventType, Map<String, Long>> perSession =
          events.stream()
              .collect(
                  Collectors.groupingBy(
                      DeviceSessionEvent::type,
                      Collectors.groupingBy(
                          DeviceSessionEvent::sessionRef, Collectors.counting())));
      assertThat(perSession.get(DeviceSessionEventType.Opened))
          .hasSize(300)
          .allSatisfy((ref, n) -> assertThat(n).isEqualTo(1));
      assertThat(perSession.get(DeviceSessionEventType.Closed))
          .hasSize(300)
          .allSatisfy((ref, n) -> assertThat(n).isEqualTo(1));
      assertThat(events).hasSize(600);
      Demo.Expected expected = Demo.Expected.from(sample);
      events.stream()
          .filter(e -> e.type() == DeviceSessionEventType.Closed)
          .forEach(
              e ->
                  assertThat(e.durationMillis())
                      .as(e.sessionRef())
                      .isEqualTo(expected.durationByRef().get(e.sessionRef())));
      assertThat(
              TopicReader.readUntil(
                  stack.bootstrapServers(),
                  TopicCatalogue.REJECTED_EVENTS.baseName(),
                  read -> true,
                  Duration.ofSeconds(30)))
          .isEmpty();
    }
  }

  private static TopologyConfig secondPod() {
    Map<String, String> values = new HashMap<>();
    values.put("kafka.bootstrap.servers", stack.bootstrapServers());
    values.put("topology.state-dir", podB.toString());
    values.put("topology.num-standby-replicas", "0");
    values.put("topology.punctuate-interval-ms", "1000");
    return TopologyConfig.of(values);
  }

  private static List<DeviceSessionEvent> sessionEvents(int expected) {
    List<ConsumerRecord<String, byte[]>> records =
        TopicReader.readUntil(
            stack.bootstrapServers(),
            TopicCatalogue.DEVICE_SESSIONS.baseName(),
            read -> read.size() >= expected,
            Duration.ofMinutes(2));
    return records.stream()
        .map(
            r -> {
              try {
                return Json.mapper().readValue(r.value(), DeviceSessionEvent.class);
              } catch (IOException e) {
                throw new UncheckedIOException(e);
              }
            })
        .toList();
  }
}
