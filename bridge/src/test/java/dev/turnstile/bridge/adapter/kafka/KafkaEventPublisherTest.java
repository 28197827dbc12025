package dev.turnstile.bridge.adapter.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.turnstile.bridge.port.out.PublishEventPort.PublishedEvent;
import dev.turnstile.bridge.port.out.PublishException;
import dev.turnstile.bridge.port.out.PublishException.Reason;
import io.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.errors.NotEnoughReplicasException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.TimeoutException;
import org.junit.jupiter.api.Test;

class KafkaEventPublisherTest {

  @Test
  void onlyTheRecordsOwnFaultsAreRejectedAndEverythingElseIsUnavailable() {
    assertThat(KafkaEventPublisher.toPublishException(new RecordTooLargeException("big")).reason())
        .isEqualTo(Reason.REJECTED);
    assertThat(KafkaEventPublisher.toPublishException(new TimeoutException("slow")).reason())
        .isEqualTo(Reason.UNAVAILABLE);
    assertThat(
            KafkaEventPublisher.toPublishException(new NotEnoughReplicasException("isr")).reason())
        .isEqualTo(Reason.UNAVAILABLE);
    assertThat(
            KafkaEventPublisher.toPublishException(
                    new org.apache.kafka.common.InvalidRecordException("bad"))
                .reason())
        .isEqualTo(Reason.REJECTED);
    // Not the message's fault: an ACL slip or a broker fault must not dead-letter good traffic.
    assertThat(
            KafkaEventPublisher.toPublishException(
                    new org.apache.kafka.common.errors.TopicAuthorizationException("acl"))
                .reason())
        .isEqualTo(Reason.UNAVAILABLE);
    assertThat(
            KafkaEventPublisher.toPublishException(
                    new org.apache.kafka.common.errors.UnknownServerException("broker"))
                .reason())
        .isEqualTo(Reason.UNAVAILABLE);
    assertThat(
            KafkaEventPublisher.toPublishException(
                    new org.apache.kafka.common.KafkaException("Producer is closed forcefully."))
                .reason())
        .isEqualTo(Reason.UNAVAILABLE);
  }

  @Test
  void aFullInFlightBoundFailsAtOnceAndNoAckFailsWithinTheTimeout() throws Exception {
    KafkaEventPublisher publisher = withoutBroker(Duration.ofMillis(500), 1);
    try {
      CompletableFuture<PublishedEvent> first =
          publisher.publish("t.v1", "k", event()).toCompletableFuture();
      CompletableFuture<PublishedEvent> second =
          publisher.publish("t.v1", "k", event()).toCompletableFuture();

      assertThat(second).isCompletedExceptionally();
      assertThatThrownBy(second::join).hasCauseInstanceOf(PublishException.class);
      assertThat(reasonOf(second)).isEqualTo(Reason.SATURATED);
      assertThatThrownBy(() -> first.get(5, TimeUnit.SECONDS))
          .hasCauseInstanceOf(PublishException.class);
      assertThat(reasonOf(first)).isEqualTo(Reason.UNAVAILABLE);
    } finally {
      publisher.close(Duration.ofSeconds(1));
    }
  }

  /**
   * With no broker to give metadata, Kafka's own send would block for {@code max.block.ms}; the
   * publisher's returns at once (it runs on an event loop) and the write fails at the ack timeout.
   */
  @Test
  void aSendThatKafkaCannotTakeYetNeverBlocksTheCaller() throws Exception {
    KafkaEventPublisher publisher = withoutBroker(Duration.ofSeconds(30), 10);
    try {
      List<CompletableFuture<PublishedEvent>> pending =
          assertTimeoutPreemptively(
              Duration.ofSeconds(10),
              () -> {
                List<CompletableFuture<PublishedEvent>> stages = new ArrayList<>();
                stages.add(publisher.publish("t.v1", "k", event()).toCompletableFuture());
                for (var stage : publisher.publishAll("t.v1", "k", List.of(event(), event()))) {
                  stages.add(stage.toCompletableFuture());
                }
                return stages;
              });
      assertThat(pending).hasSize(3).noneMatch(CompletableFuture::isDone);
    } finally {
      publisher.close(Duration.ofSeconds(1));
    }
  }

  /** A write waiting for its retry when the publisher closes fails then, not at its ack timeout. */
  @Test
  void closingFailsTheWritesWaitingForARetryAtOnce() throws Exception {
    KafkaEventPublisher publisher = withoutBroker(Duration.ofMinutes(5), 10);
    CompletableFuture<PublishedEvent> waiting =
        publisher.publish("t.v1", "k", event()).toCompletableFuture();
    List<CompletableFuture<PublishedEvent>> sequence =
        publisher.publishAll("t.v1", "k", List.of(event(), event())).stream()
            .map(CompletionStage::toCompletableFuture)
            .toList();

    publisher.close(Duration.ofSeconds(1));

    for (CompletableFuture<PublishedEvent> write : concat(waiting, sequence)) {
      assertThatThrownBy(() -> write.get(10, TimeUnit.SECONDS))
          .hasCauseInstanceOf(PublishException.class)
          .hasMessageContaining("closed");
      assertThat(reasonOf(write)).isEqualTo(Reason.UNAVAILABLE);
    }
  }

  private static List<CompletableFuture<PublishedEvent>> concat(
      CompletableFuture<PublishedEvent> first, List<CompletableFuture<PublishedEvent>> rest) {
    List<CompletableFuture<PublishedEvent>> all = new ArrayList<>(List.of(first));
    all.addAll(rest);
    return all;
  }

  @Test
  void aSequenceIsTakenWholeOrNotAtAll() throws Exception {
    KafkaEventPublisher publisher = withoutBroker(Duration.ofMillis(500), 3);
    try {
      var tooMany = publisher.publishAll("t.v1", "k", List.of(event(), event(), event(), event()));
      assertThat(tooMany).hasSize(4);
      for (var stage : tooMany) {
        assertThat(reasonOf(stage.toCompletableFuture())).isEqualTo(Reason.SATURATED);
      }

      var taken = publisher.publishAll("t.v1", "k", List.of(event(), event(), event()));
      CompletableFuture<PublishedEvent> single =
          publisher.publish("t.v1", "k", event()).toCompletableFuture();
      assertThat(reasonOf(single)).as("all three permits are held").isEqualTo(Reason.SATURATED);
      for (var stage : taken) {
        assertThatThrownBy(() -> stage.toCompletableFuture().get(5, TimeUnit.SECONDS))
            .hasCauseInstanceOf(PublishException.class);
        assertThat(reasonOf(stage.toCompletableFuture())).isEqualTo(Reason.UNAVAILABLE);
      }
      // The permits come back with the producer's own callbacks, which may follow the timeout.
      await()
          .atMost(Duration.ofSeconds(5))
          .until(
              () ->
                  publisher.publishAll("t.v1", "k", List.of(event(), event(), event())).stream()
                      .noneMatch(stage -> stage.toCompletableFuture().isDone()));
    } finally {
      publisher.close(Duration.ofSeconds(1));
    }
  }

  /** A publisher whose bootstrap server is a port nothing listens on: no metadata, no acks. */
  private static KafkaEventPublisher withoutBroker(Duration ackTimeout, int maxInFlight)
      throws IOException {
    int closedPort;
    try (ServerSocket socket = new ServerSocket(0)) {
      closedPort = socket.getLocalPort();
    }
    return new KafkaEventPublisher(
        Map.of("bootstrap.servers", "127.0.0.1:" + closedPort),
        ackTimeout,
        maxInFlight,
        Clock.systemUTC());
  }

  private static Reason reasonOf(CompletableFuture<?> failed) {
    try {
      failed.join();
      throw new AssertionError("expected a failure");
    } catch (java.util.concurrent.CompletionException e) {
      return ((PublishException) e.getCause()).reason();
    }
  }

  private static CloudEvent event() {
    return CloudEventBuilder.v1()
        .withId("e-1")
        .withSource(URI.create("/devices/d"))
        .withType("dev.turnstile.device.started.v1")
        .withData("application/json", "{}".getBytes(StandardCharsets.UTF_8))
        .build();
  }
}
