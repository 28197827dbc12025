package dev.turnstile.topology.adapter.streams;

import static dev.turnstile.schemas.DeviceEventType.Finished;
import static dev.turnstile.schemas.DeviceEventType.Started;
import static dev.turnstile.topology.adapter.streams.TopologyFixture.event;
import static org.assertj.core.api.Assertions.assertThat;

import dev.turnstile.schemas.CloudEventHeaders;
import dev.turnstile.schemas.DeviceEvent;
import dev.turnstile.schemas.DeviceSessionEventType;
import dev.turnstile.schemas.RejectedEvent;
import dev.turnstile.schemas.RejectionReason;
import dev.turnstile.schemas.ServiceBusHeaders;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.OffsetDateTime;
import java.util.List;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The inputs issue 8 reported against the topology, each as it was reproduced; {@link
 * HostileInputProperties} covers their kinds. Cases 3 (timestamp -1) and 9-11 are tested where they
 * are decided: {@code UsableTimestampExtractorTest}, the configuration and the bridge.
 */
class ReportedHostileInputsTest {

  private static final OffsetDateTime T0 = OffsetDateTime.parse("2026-01-05T08:00:00Z");

  @TempDir Path dir;

  @Test
  void case1AStartedNested1000DeepIsRejectedAndTheNextEventStillFlows() {
    try (TopologyFixture t = new TopologyFixture(dir)) {
      String deep = "{\"a\":".repeat(997) + "{}" + "}".repeat(997);
      sendRaw(
          t,
          "h1-d",
          "deep",
          "{\"deviceId\":\"h1-d\",\"eventId\":\"deep\",\"type\":\"Started\",\"occurredAt\":\""
              + T0
              + "\",\"attributes\":"
              + deep
              + "}");
      t.send(event("h1-d", "next", Started, null, T0));

      List<RejectedEvent> rejections = t.rejections();
      assertThat(rejections)
          .extracting(RejectedEvent::reason)
          .containsExactly(RejectionReason.MALFORMED_EVENT);
      assertThat(rejections.get(0).detail()).contains("nested deeper than 64 levels");
      assertThat(t.sessionEvents())
          .extracting(e -> e.type())
          .containsExactly(DeviceSessionEventType.Opened);
    }
  }

  @Test
  void case1AServiceBusBodyNested998DeepIsRejectedByTheMergeInputStage() {
    try (TopologyFixture t = new TopologyFixture(dir)) {
      String body =
          "{\"sessionId\":\"k\","
              + "\"a\":".repeat(1)
              + "{\"a\":".repeat(996)
              + "1"
              + "}".repeat(996)
              + "}";
      t.sendServiceBus("k", "m1", 1, "k", body.getBytes(StandardCharsets.UTF_8));

      assertThat(t.rejections())
          .singleElement()
          .satisfies(
              r -> {
                assertThat(r.reason()).isEqualTo(RejectionReason.NOT_MERGEABLE);
                assertThat(r.stage()).isEqualTo(Names.SERVICEBUS_MERGE_INPUT);
                assertThat(r.detail()).contains("nested deeper than 64 levels");
              });
      assertThat(t.mergeResults.readValuesToList()).isEmpty();
    }
  }

  @Test
  void case2APatchThatWouldGrowTheStoredMergeStatePastItsBoundIsRejectedAndTheStateKept() {
    try (TopologyFixture t = new TopologyFixture(dir)) {
      StringBuilder deletes = new StringBuilder("{");
      for (int i = 1; i <= 20; i++) {
        deletes.append(i == 1 ? "" : ",").append("\"b").append(i).append("\":null");
      }
      sendServiceBus(t, "corrections", "c1", 1000, "K13", deletes.append('}').toString());
      String big = "x".repeat(65_000);
      for (int i = 1; i <= 17; i++) {
        t.sendServiceBus(
            "K13",
            "b" + i,
            i,
            "K13",
            ("{\"b" + i + "\":\"" + big + "\"}").getBytes(StandardCharsets.UTF_8));
      }

      List<RejectedEvent> rejections = t.rejections();
      assertThat(rejections).isNotEmpty();
      assertThat(rejections)
          .extracting(RejectedEvent::reason)
          .containsOnly(RejectionReason.MERGE_STATE_FULL);
      // Every merge that was applied still published its result; the rejected ones nothing.
      assertThat(t.mergeResults.readValuesToList()).hasSize(18 - rejections.size());
      t.sendServiceBus("K13", "after", 2000, "K13", "{\"c\":1}".getBytes(StandardCharsets.UTF_8));
      assertThat(t.mergeResults.readValuesToList()).hasSize(1);
    }
  }

  @Test
  void cases4And5TrailingContentAndDuplicateKeysAreRefusedWithTheSameWordsAsOverHttp() {
    try (TopologyFixture t = new TopologyFixture(dir)) {
      t.sendServiceBus(
          "tr-1",
          "m-trailing",
          1,
          "tr-1",
          ("{\"sessionId\":\"tr-1\",\"userId\":\"u-3\",\"kwhTotal\":4.0,\"dollars\":1.00}\n"
                  + "{\"sessionId\":\"tr-1\",\"userId\":\"u-3\",\"kwhTotal\":4.0,\"dollars\":9.99}")
              .getBytes(StandardCharsets.UTF_8));
      t.sendServiceBus(
          "tr-2",
          "m-duplicate",
          2,
          "tr-2",
          "{\"sessionId\":\"tr-2\",\"userId\":\"u-3\",\"kwhTotal\":4.0,\"dollars\":1.00,\"dollars\":9.99}"
              .getBytes(StandardCharsets.UTF_8));

      // The bridge's HTTP path reads bodies with the same StrictJson.senders(): same bytes, same
      // words (the bridge's own tests check its answers carry them).
      assertThat(t.rejections())
          .extracting(RejectedEvent::reason, RejectedEvent::detail)
          .containsExactly(
              org.assertj.core.groups.Tuple.tuple(
                  RejectionReason.NOT_MERGEABLE,
                  "the body is not JSON: unexpected content after the JSON value at line 2, column 1"),
              org.assertj.core.groups.Tuple.tuple(
                  RejectionReason.NOT_MERGEABLE,
                  "the body is not JSON: duplicate key \"dollars\" at line 1, column 75"));
      assertThat(t.mergeResults.readValuesToList()).isEmpty();
    }
  }

  @Test
  void case6ABillingRecordCannotOverwriteTheSessionsFieldsNorPublishABrokenSettlement() {
    try (TopologyFixture t = new TopologyFixture(dir)) {
      t.send(event("st-6", "s", Started, "r6", T0));
      t.send(event("st-6", "f", Finished, "r6", T0.plusHours(1)));
      billing(t, "m1", 1, "{\"sessionId\":\"r6\",\"startedAt\":\"2026-11-30 08:00:00\"}");
      billing(t, "m2", 2, "{\"sessionId\":\"r6\",\"durationMillis\":1e400}");
      billing(t, "m3", 3, "{\"sessionId\":\"r6\",\"startedAt\":1e1000000000}");
      billing(
          t, "m4", 4, "{\"sessionId\":\"r6\",\"userId\":\"u\",\"kwhTotal\":1e400,\"dollars\":1}");

      assertThat(t.rejections())
          .extracting(RejectedEvent::reason)
          .containsExactly(
              RejectionReason.FIELD_OWNED_ELSEWHERE,
              RejectionReason.FIELD_OWNED_ELSEWHERE,
              RejectionReason.NOT_MERGEABLE,
              RejectionReason.INVALID_FIELD);
      assertThat(t.postMergeOutputs()).isEmpty();
      billing(t, "m5", 5, "{\"sessionId\":\"r6\",\"kwhTotal\":2.5}");
      assertThat(t.postMergeOutputs())
          .singleElement()
          .satisfies(
              o -> assertThat(OffsetDateTime.parse(o.get("startedAt").asText())).isEqualTo(T0));
    }
  }

  @Test
  void case8AConflictingCopyIsDroppedCountedApartAndReportedWithBothFingerprints() {
    try (TopologyFixture t = new TopologyFixture(dir)) {
      DeviceEvent first =
          new DeviceEvent(
              "h3-d", "h3-c1", Started, T0, "h3-ref", json("{\"v\":1}"), TopologyFixture.START);
      DeviceEvent conflicting =
          new DeviceEvent(
              "h3-d",
              "h3-c1",
              Started,
              T0.plusMinutes(5),
              "h3-ref",
              json("{\"v\":9}"),
              TopologyFixture.START);
      DeviceEvent identicalResend =
          new DeviceEvent(
              "h3-d",
              "h3-c1",
              Started,
              T0,
              "h3-ref",
              json("{\"v\":1}"),
              TopologyFixture.START.plusSeconds(30));
      t.send(first);
      t.send(conflicting);
      t.send(identicalResend);

      assertThat(t.sessionEvents()).hasSize(1);
      assertThat(t.rejections())
          .singleElement()
          .satisfies(
              r -> {
                assertThat(r.reason()).isEqualTo(RejectionReason.DUPLICATE_CONFLICT);
                assertThat(r.eventId()).isEqualTo("h3-c1");
                assertThat(r.detail())
                    .containsPattern("content [0-9a-f]{16}; this copy has content [0-9a-f]{16}");
              });
    }
  }

  private static com.fasterxml.jackson.databind.JsonNode json(String text) {
    return TopologyFixture.tree(text.getBytes(StandardCharsets.UTF_8));
  }

  private static void billing(TopologyFixture t, String id, long seq, String body) {
    t.sendServiceBus("r6", id, seq, "r6", body.getBytes(StandardCharsets.UTF_8));
  }

  private static void sendRaw(TopologyFixture t, String device, String id, String value) {
    RecordHeaders headers = new RecordHeaders();
    headers.add(
        CloudEventHeaders.SOURCE,
        CloudEventHeaders.deviceSource(device).getBytes(StandardCharsets.UTF_8));
    headers.add(CloudEventHeaders.ID, id.getBytes(StandardCharsets.UTF_8));
    t.input.pipeInput(
        new TestRecord<>(
            device, value.getBytes(StandardCharsets.UTF_8), headers, TopologyFixture.START));
  }

  private static void sendServiceBus(
      TopologyFixture t, String entity, String id, long seq, String mergeKey, String body) {
    RecordHeaders headers = new RecordHeaders();
    headers.add(CloudEventHeaders.ID, id.getBytes(StandardCharsets.UTF_8));
    headers.add(
        CloudEventHeaders.SOURCE,
        ServiceBusHeaders.source("ns", entity).getBytes(StandardCharsets.UTF_8));
    headers.add(
        ServiceBusHeaders.SEQUENCE_NUMBER, Long.toString(seq).getBytes(StandardCharsets.UTF_8));
    headers.add(ServiceBusHeaders.property("mergeKey"), mergeKey.getBytes(StandardCharsets.UTF_8));
    t.serviceBus.pipeInput(
        new TestRecord<>(
            mergeKey, body.getBytes(StandardCharsets.UTF_8), headers, TopologyFixture.START));
  }
}
