package dev.turnstile.topology.adapter.streams;

import static dev.turnstile.schemas.DeviceEventType.Finished;
import static dev.turnstile.schemas.DeviceEventType.Started;
import static dev.turnstile.topology.adapter.streams.TopologyFixture.event;
import static dev.turnstile.topology.adapter.streams.TopologyFixture.tree;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.turnstile.schemas.CloudEventHeaders;
import dev.turnstile.schemas.RejectedEvent;
import dev.turnstile.schemas.RejectionReason;
import dev.turnstile.schemas.TopicCatalogue;
import dev.turnstile.topology.config.TopologyConfig;
import dev.turnstile.topology.domain.merge.CompletenessRule;
import dev.turnstile.topology.domain.merge.PostMergeStep;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.internals.BuiltInPartitioner;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Stages 3 and 4, merge and post-merge, over the production topology. */
class MergeTopologyTest {

  static final OffsetDateTime T0 = OffsetDateTime.parse("2014-11-18T15:40:26-05:00");
  static final String REF = "1366563";
  static final String BILLING =
      "{\"sessionId\":\"1366563\",\"userId\":\"35897499\",\"kwhTotal\":7.78,\"dollars\":0}";

  @TempDir Path stateDir;

  private static void sendSession(TopologyFixture topology) {
    topology.send(event("st-1", "s", Started, REF, T0));
    topology.send(event("st-1", "f", Finished, REF, T0.plusHours(2)));
  }

  private static void sendBilling(
      TopologyFixture topology, String messageId, long seq, String body) {
    topology.sendServiceBus(REF, messageId, seq, REF, body.getBytes(StandardCharsets.UTF_8));
  }

  private List<JsonNode> settle(String dir, boolean sessionFirst) {
    try (TopologyFixture topology = new TopologyFixture(stateDir.resolve(dir))) {
      if (sessionFirst) {
        sendSession(topology);
        assertThat(topology.postMergeOutputs()).as("session alone is incomplete").isEmpty();
        sendBilling(topology, "m1", 10, BILLING);
      } else {
        sendBilling(topology, "m1", 10, BILLING);
        assertThat(topology.postMergeOutputs()).as("billing alone is incomplete").isEmpty();
        sendSession(topology);
      }
      assertThat(topology.mergeResults.readKeyValuesToList())
          .extracting(kv -> kv.key)
          .containsExactly(REF, REF);
      assertThat(topology.rejections()).isEmpty();
      return topology.postMergeOutputs();
    }
  }

  @Test
  void aSessionAndItsBillingSettleOnceInEitherOrderWithTheSameResult() {
    List<JsonNode> sessionFirst = settle("a", true);
    List<JsonNode> billingFirst = settle("b", false);

    assertThat(sessionFirst).hasSize(1).isEqualTo(billingFirst);
    JsonNode settled = sessionFirst.get(0);
    assertThat(settled.get("mergeKey").asText()).isEqualTo(REF);
    assertThat(settled.get("station").asText()).isEqualTo("st-1");
    assertThat(settled.get("startedAt").asText()).isEqualTo("2014-11-18T15:40:26-05:00");
    assertThat(settled.get("endedAt").asText()).isEqualTo("2014-11-18T17:40:26-05:00");
    assertThat(settled.get("durationMillis").asLong()).isEqualTo(7_200_000L);
    assertThat(settled.get("userId").asText()).isEqualTo("35897499");
    assertThat(settled.get("kwhTotal").decimalValue()).isEqualByComparingTo("7.78");
    assertThat(settled.get("averagePowerKw").decimalValue()).isEqualByComparingTo("3.8900");
    assertThat(settled.get("pricePerKwh").decimalValue()).isEqualByComparingTo("0");
  }

  @Test
  void aKeyWithoutAPatchForTheRetentionIsForgottenAndALatePatchStartsANewDocument() {
    try (TopologyFixture topology =
        new TopologyFixture(stateDir, Map.of("topology.merge.retention-ms", "60000"))) {
      byte[] first = "{\"a\":1}".getBytes(StandardCharsets.UTF_8);
      byte[] second = "{\"b\":2}".getBytes(StandardCharsets.UTF_8);
      topology.sendServiceBus(REF, "m1", 1, REF, first, TopologyFixture.START);
      topology.sendServiceBus(REF, "m2", 2, REF, second, TopologyFixture.START.plusSeconds(30));
      topology.sendServiceBus(
          REF, "m3", 3, REF, first, TopologyFixture.START.plus(java.time.Duration.ofMinutes(3)));

      List<JsonNode> results =
          topology.mergeResults.readValuesToList().stream().map(TopologyFixture::tree).toList();
      assertThat(results)
          .extracting(r -> r.get("contributionCount").asLong())
          .containsExactly(1L, 2L, 1L);
      assertThat(results.get(2).get("document")).isEqualTo(TopologyFixture.tree(first));
    }
  }

  @Test
  void theSameBillingMessageTwiceHasOneEffect() {
    try (TopologyFixture topology = new TopologyFixture(stateDir)) {
      sendSession(topology);
      sendBilling(topology, "m1", 10, BILLING);
      sendBilling(topology, "m1", 10, BILLING);

      assertThat(topology.mergeResults.readValuesToList()).hasSize(2);
      assertThat(topology.postMergeOutputs()).hasSize(1);
    }
  }

  @Test
  void aReplayedMergeInputHasNoSecondResultAndNoSecondPostMergeOutput() {
    try (TopologyFixture topology = throughMergeInputs()) {
      TestOutputTopic<String, byte[]> mergeInputs = mergeInputs(topology);
      sendSession(topology);
      sendBilling(topology, "m1", 10, BILLING);
      assertThat(topology.mergeResults.readValuesToList()).hasSize(2);
      assertThat(topology.postMergeOutputs()).hasSize(1);

      // Anyone may write merge-inputs.v1 again (a replay from an offset, a second writer).
      TestInputTopic<String, byte[]> replay =
          topology.driver.createInputTopic(
              TopicCatalogue.MERGE_INPUTS.baseName(),
              new StringSerializer(),
              new ByteArraySerializer());
      for (TestRecord<String, byte[]> input : mergeInputs.readRecordsToList()) {
        replay.pipeInput(
            new TestRecord<>(input.key(), input.value(), input.headers(), input.timestamp()));
      }

      assertThat(topology.mergeResults.readValuesToList()).isEmpty();
      assertThat(topology.postMergeOutputs()).isEmpty();
      assertThat(topology.rejections()).isEmpty();
    }
  }

  /** Every Service Bus patch through {@code merge-inputs.v1}, none merged in place. */
  private TopologyFixture throughMergeInputs() {
    return new TopologyFixture(
        stateDir,
        Map.of(),
        CompletenessRule.settledChargingSession(), /* localMergePartitions */
        0);
  }

  private static TestOutputTopic<String, byte[]> mergeInputs(TopologyFixture topology) {
    return topology.driver.createOutputTopic(
        TopicCatalogue.MERGE_INPUTS.baseName(),
        new StringDeserializer(),
        new ByteArrayDeserializer());
  }

  @Test
  void aMessageKeyedByItsMergeKeyIsMergedInPlaceAndOneKeyedOtherwiseThroughMergeInputs() {
    try (TopologyFixture topology = new TopologyFixture(stateDir)) {
      TestOutputTopic<String, byte[]> mergeInputs = mergeInputs(topology);
      sendSession(topology);
      sendBilling(topology, "m1", 10, BILLING);
      assertThat(mergeInputs.readRecordsToList())
          .as("only the closed session's patch takes the hop")
          .extracting(r -> tree(r.value()).at("/patch/source").asText())
          .containsExactly(SessionMergeInputProcessor.SOURCE);
      assertThat(topology.postMergeOutputs()).hasSize(1);

      // Keyed by something else (a queue keyed by message id): re-keyed through the topic.
      topology.sendServiceBus("other-key", "m2", 11, REF, "{\"note\":1}".getBytes(UTF_8));
      assertThat(mergeInputs.readRecordsToList())
          .extracting(r -> r.key() + " " + tree(r.value()).at("/patch/eventId").asText())
          .containsExactly(REF + " m2");
      assertThat(topology.mergeResults.readValuesToList())
          .extracting(v -> tree(v).get("contributionCount").asLong())
          .containsExactly(1L, 2L, 3L);
    }
  }

  @Test
  void aMessageOnAnotherPartitionThanItsMergeKeysTakesTheHopWhateverItsKey() {
    // The driver puts every record on partition 0; with six partitions declared, only a key that
    // Kafka's partitioner sends to partition 0 is where merge-inputs.v1 would put it.
    int partitions = 6;
    List<String> keys = List.of("k0", "k1", "k2", "k3", "k4", "k5", "k6", "k7", "k8", "k9");
    List<String> atZero =
        keys.stream()
            .filter(k -> BuiltInPartitioner.partitionForKey(k.getBytes(UTF_8), partitions) == 0)
            .toList();
    assertThat(atZero).as("some keys, not all").isNotEmpty().hasSizeLessThan(keys.size());
    try (TopologyFixture topology =
        new TopologyFixture(
            stateDir, Map.of(), CompletenessRule.settledChargingSession(), partitions)) {
      TestOutputTopic<String, byte[]> mergeInputs = mergeInputs(topology);
      long seq = 1;
      for (String key : keys) {
        topology.sendServiceBus(key, "m-" + key, seq++, key, "{\"a\":1}".getBytes(UTF_8));
      }

      assertThat(mergeInputs.readKeyValuesToList())
          .extracting(kv -> kv.key)
          .containsExactlyElementsOf(keys.stream().filter(k -> !atZero.contains(k)).toList());
      assertThat(topology.mergeResults.readKeyValuesToList())
          .extracting(kv -> kv.key)
          .containsExactlyInAnyOrderElementsOf(keys);
      assertThat(topology.rejections()).isEmpty();
    }
  }

  @Test
  void aMergeInputCarriesOnlyTheIdOfTheEventItCameFrom() {
    try (TopologyFixture topology = throughMergeInputs()) {
      TestOutputTopic<String, byte[]> mergeInputs = mergeInputs(topology);
      sendSession(topology);
      sendBilling(topology, "m1", 10, BILLING);
      String closedSessionId =
          header(topology.sessions.readRecordsToList().get(1), CloudEventHeaders.ID);

      List<TestRecord<String, byte[]>> inputs = mergeInputs.readRecordsToList();
      assertThat(inputs)
          .extracting(r -> List.of(r.headers().toArray()).size())
          .containsExactly(1, 1);
      assertThat(inputs)
          .extracting(r -> header(r, CloudEventHeaders.ID))
          .containsExactly(closedSessionId, "m1");
    }
  }

  @Test
  void aLatePatchThatChangesNoOutputPublishesNoSecondSettledSession() {
    try (TopologyFixture topology = new TopologyFixture(stateDir)) {
      sendSession(topology);
      sendBilling(topology, "m2", 20, BILLING);
      assertThat(topology.mergeResults.readValuesToList()).hasSize(2);
      assertThat(topology.postMergeOutputs()).hasSize(1);

      // An older correction arrives late: placed before m2, which still wins on every field.
      sendBilling(topology, "m1", 10, "{\"dollars\":9.99}");

      assertThat(topology.mergeResults.readValuesToList()).hasSize(1);
      assertThat(topology.postMergeOutputs()).isEmpty();
      assertThat(topology.rejections()).isEmpty();
    }
  }

  @Test
  void aValueThatReturnsIsPublishedAgainEachTimeItChanges() {
    try (TopologyFixture topology = new TopologyFixture(stateDir)) {
      sendSession(topology);
      sendBilling(topology, "m1", 10, BILLING);
      sendBilling(topology, "m2", 11, "{\"dollars\":2.00}");
      sendBilling(topology, "m3", 12, "{\"dollars\":0}");

      assertThat(topology.postMergeOutputs())
          .extracting(o -> o.get("dollars").decimalValue().toPlainString())
          .containsExactly("0", "2.00", "0");
    }
  }

  @Test
  void aPostMergeRejectionCarriesTheResultAndThePlaceOfTheInputThatProducedIt() {
    try (TopologyFixture topology = new TopologyFixture(stateDir)) {
      sendSession(topology);
      sendBilling(
          topology,
          "m1",
          10,
          "{\"sessionId\":\"1366563\",\"userId\":\"u\",\"kwhTotal\":1e400,\"dollars\":1}");

      List<TestRecord<String, byte[]>> results = topology.mergeResults.readRecordsToList();
      assertThat(results).as("the merge result stands").hasSize(2);
      JsonNode refused = TopologyFixture.tree(results.get(1).value());
      assertThat(topology.postMergeOutputs()).isEmpty();
      assertThat(topology.rejections())
          .singleElement()
          .satisfies(
              r -> {
                assertThat(r.reason()).isEqualTo(RejectionReason.INVALID_FIELD);
                assertThat(r.stage()).isEqualTo(Names.POST_MERGE);
                assertThat(r.key()).isEqualTo(REF);
                assertThat(r.eventId()).isEqualTo(refused.get("mergeResultId").asText());
                assertThat(r.event()).isEqualTo(refused);
                // The billing message was merged in place: its record produced the result.
                assertThat(r.sourceTopic())
                    .isEqualTo(TopicCatalogue.SERVICEBUS_MESSAGES_RAW.baseName());
                assertThat(r.detail()).startsWith("/kwhTotal");
              });
    }
  }

  @Test
  void aPostMergeStepThatThrowsIsRejectedAndTheMergeGoesOn() {
    PostMergeStep throwing =
        result -> {
          throw new IllegalStateException("a bug in a custom step");
        };
    try (TopologyFixture topology = new TopologyFixture(stateDir, Map.of(), throwing)) {
      sendSession(topology);
      sendBilling(topology, "m1", 10, BILLING);

      assertThat(topology.mergeResults.readValuesToList()).hasSize(2);
      assertThat(topology.postMergeOutputs()).isEmpty();
      assertThat(topology.rejections())
          .extracting(RejectedEvent::stage, RejectedEvent::reason)
          .containsExactly(
              org.assertj.core.groups.Tuple.tuple(
                  Names.POST_MERGE, RejectionReason.POST_MERGE_FAILED),
              org.assertj.core.groups.Tuple.tuple(
                  Names.POST_MERGE, RejectionReason.POST_MERGE_FAILED));
    }
  }

  @Test
  void theServiceBusPathMergeAndPostMergeAreOneSubTopologyBesideTheDevicePath() {
    TopologyConfig config =
        TopologyConfig.of(
            Map.of(
                "kafka.bootstrap.servers",
                "unused:9092",
                "topology.state-dir",
                stateDir.toString()));

    assertThat(TurnstileTopology.build(config).describe().subtopologies()).hasSize(2);
    assertThat(TurnstileTopology.localMergePartitions())
        .as("merge-inputs.v1 and servicebus-messages.raw.v1 are declared alike, so in-place merges")
        .isEqualTo(TopicCatalogue.MERGE_INPUTS.partitions())
        .isPositive();
    assertThat(TurnstileTopology.sourceTopics(TurnstileTopology.build(config)))
        .containsExactlyInAnyOrder(
            TopicCatalogue.DEVICE_EVENTS_RAW.baseName(),
            TopicCatalogue.SERVICEBUS_MESSAGES_RAW.baseName(),
            TopicCatalogue.MERGE_INPUTS.baseName());
  }

  @Test
  void aNewResultThatChangesNothingShownIsNotPublishedAndACorrectionIs() {
    try (TopologyFixture topology = new TopologyFixture(stateDir)) {
      sendSession(topology);
      sendBilling(topology, "m1", 10, BILLING);
      assertThat(topology.postMergeOutputs()).hasSize(1);

      // Re-sent by the back office as a new message: new id, same content.
      sendBilling(topology, "m2", 11, BILLING);
      assertThat(topology.postMergeOutputs()).isEmpty();

      sendBilling(topology, "m3", 12, "{\"dollars\":1.56}");
      List<JsonNode> corrected = topology.postMergeOutputs();
      assertThat(corrected).hasSize(1);
      assertThat(corrected.get(0).get("pricePerKwh").decimalValue()).isEqualByComparingTo("0.2005");
    }
  }

  @Test
  void theMergeResultCarriesItsIdInCloudEventsHeaders() {
    try (TopologyFixture topology = new TopologyFixture(stateDir)) {
      sendBilling(topology, "m1", 10, BILLING);
      TestRecord<String, byte[]> result = topology.mergeResults.readRecord();
      JsonNode value = TopologyFixture.tree(result.value());

      assertThat(value.get("document").get("kwhTotal").decimalValue()).isEqualByComparingTo("7.78");
      assertThat(value.get("version").get("kind").asText()).isEqualTo("SOURCE_SEQUENCE");
      assertThat(header(result, CloudEventHeaders.ID))
          .isEqualTo(value.get("mergeResultId").asText())
          .hasSize(64);
      assertThat(header(result, CloudEventHeaders.TYPE)).isEqualTo(MergeProcessor.RESULT_TYPE);
    }
  }

  @Test
  void theMergeKeyCanComeFromAPointerIntoTheBody() {
    Map<String, String> pointer = Map.of("topology.merge.servicebus.key-pointer", "/sessionId");
    try (TopologyFixture topology = new TopologyFixture(stateDir, pointer)) {
      sendSession(topology);
      topology.sendServiceBus(
          "other-key", "m1", 10, null, BILLING.getBytes(StandardCharsets.UTF_8));

      assertThat(topology.postMergeOutputs())
          .extracting(o -> o.get("mergeKey").asText())
          .containsExactly(REF);
      assertThat(topology.rejections()).isEmpty();
    }
  }

  @Test
  void closedSessionsAreNotMergedWhenDisabled() {
    Map<String, String> disabled = Map.of("topology.merge.sessions.enabled", "false");
    try (TopologyFixture topology = new TopologyFixture(stateDir, disabled)) {
      sendSession(topology);

      assertThat(topology.sessionEvents()).hasSize(2);
      assertThat(topology.mergeResults.isEmpty()).isTrue();
    }
  }

  @Test
  void unmergeableInputIsRejectedWithItsReason() {
    Map<String, String> small =
        Map.of("topology.merge.max-document-bytes", "120", "topology.merge.max-patches", "1");
    try (TopologyFixture topology = new TopologyFixture(stateDir, small)) {
      topology.sendServiceBus(REF, "n1", 1, REF, "[1,2]".getBytes(StandardCharsets.UTF_8));
      topology.sendServiceBus(REF, "n2", 2, REF, "not json".getBytes(StandardCharsets.UTF_8));
      topology.sendServiceBus(REF, "n3", 3, null, BILLING.getBytes(StandardCharsets.UTF_8));
      String large = "{\"note\":\"" + "x".repeat(200) + "\"}";
      topology.sendServiceBus(REF, "n4", 4, REF, large.getBytes(StandardCharsets.UTF_8));
      // With one patch retained, seq 20 compacts seq 10 into the base; seq 5 is then stale.
      sendBilling(topology, "m10", 10, "{\"a\":1}");
      sendBilling(topology, "m20", 20, "{\"b\":2}");
      sendBilling(topology, "m5", 5, "{\"c\":3}");
      // Each patch fits, but together they outgrow the bound.
      sendBilling(topology, "m30", 30, "{\"d\":\"" + "y".repeat(60) + "\"}");
      sendBilling(topology, "m40", 40, "{\"e\":\"" + "z".repeat(60) + "\"}");

      List<RejectedEvent> rejections = topology.rejections();
      assertThat(rejections)
          .extracting(RejectedEvent::reason)
          .containsExactly(
              RejectionReason.NOT_MERGEABLE,
              RejectionReason.NOT_MERGEABLE,
              RejectionReason.MISSING_MERGE_KEY,
              RejectionReason.DOCUMENT_TOO_LARGE,
              RejectionReason.STALE_PATCH,
              RejectionReason.DOCUMENT_TOO_LARGE);
      assertThat(rejections)
          .extracting(RejectedEvent::eventId)
          .containsExactly("n1", "n2", "n3", "n4", "m5", "m40");
      assertThat(rejections.get(4).stage()).isEqualTo(Names.MERGE);
      // Merged in place, a patch's rejection points at the Service Bus record and carries its body.
      assertThat(List.of(rejections.get(4), rejections.get(5)))
          .allSatisfy(
              r -> {
                assertThat(r.stage()).isEqualTo(Names.MERGE);
                assertThat(r.sourceTopic())
                    .isEqualTo(TopicCatalogue.SERVICEBUS_MESSAGES_RAW.baseName());
              });
      assertThat(rejections.get(4).event()).isEqualTo(tree("{\"c\":3}".getBytes(UTF_8)));
      assertThat(topology.mergeResults.readValuesToList()).hasSize(3);
    }
  }

  private static String header(TestRecord<String, byte[]> record, String name) {
    return new String(record.headers().lastHeader(name).value(), StandardCharsets.UTF_8);
  }
}
