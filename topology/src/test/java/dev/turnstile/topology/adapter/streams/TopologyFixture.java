package dev.turnstile.topology.adapter.streams;

import com.fasterxml.jackson.databind.JsonNode;
import dev.turnstile.contracttest.ContractCheckingDeserializer;
import dev.turnstile.schemas.CloudEventHeaders;
import dev.turnstile.schemas.DeviceEvent;
import dev.turnstile.schemas.DeviceEventType;
import dev.turnstile.schemas.DeviceSessionEvent;
import dev.turnstile.schemas.Json;
import dev.turnstile.schemas.RejectedEvent;
import dev.turnstile.schemas.ServiceBusHeaders;
import dev.turnstile.schemas.Topic;
import dev.turnstile.schemas.TopicCatalogue;
import dev.turnstile.topology.TopologyApplication;
import dev.turnstile.topology.config.TopologyConfig;
import dev.turnstile.topology.domain.merge.CompletenessRule;
import dev.turnstile.topology.domain.merge.PostMergeStep;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.test.TestRecord;

/** A TopologyTestDriver over the production topology, with helpers to send and read events. */
final class TopologyFixture implements AutoCloseable {

  /**
   * Simulated time starts here and tests move it forward by days: it must stay in the past of the
   * real clock, which {@link UsableTimestampExtractor} compares record timestamps with.
   */
  static final Instant START = Instant.parse("2026-01-05T12:00:00Z");

  static final Duration GRACE = Duration.ofMinutes(5);
  static final Duration MAX_DURATION = Duration.ofHours(72);

  final TopologyTestDriver driver;
  final TestInputTopic<String, byte[]> input;
  final TestOutputTopic<String, byte[]> sessions;
  final TestOutputTopic<String, byte[]> rejected;
  final TestInputTopic<String, byte[]> serviceBus;
  final TestOutputTopic<String, byte[]> mergeResults;
  final TestOutputTopic<String, byte[]> postMerge;

  TopologyFixture(Path stateDir) {
    this(stateDir, Map.of());
  }

  /** With {@code overrides} on top of the fixture's configuration. */
  TopologyFixture(Path stateDir, Map<String, String> overrides) {
    this(stateDir, overrides, CompletenessRule.settledChargingSession());
  }

  /** With {@code overrides}, and {@code postMergeStep} in place of the default one. */
  TopologyFixture(Path stateDir, Map<String, String> overrides, PostMergeStep postMergeStep) {
    this(stateDir, overrides, postMergeStep, 1);
  }

  /**
   * As above, with Service Bus patches merged in place under {@code localMergePartitions}
   * partitions ({@link TurnstileTopology#build(TopologyConfig, PostMergeStep, int)}): 1 by default,
   * the driver's one partition per topic, so a record keyed by its merge key is merged in place.
   */
  TopologyFixture(
      Path stateDir,
      Map<String, String> overrides,
      PostMergeStep postMergeStep,
      int localMergePartitions) {
    Map<String, String> values = new HashMap<>();
    values.put("kafka.bootstrap.servers", "unused:9092");
    values.put("topology.state-dir", stateDir.toString());
    values.put("topology.session.reorder-grace-ms", Long.toString(GRACE.toMillis()));
    values.put("topology.session.max-duration-ms", Long.toString(MAX_DURATION.toMillis()));
    values.put("topology.punctuate-interval-ms", "1000");
    values.putAll(overrides);
    TopologyConfig config = TopologyConfig.of(values);
    driver =
        new TopologyTestDriver(
            TurnstileTopology.build(config, postMergeStep, localMergePartitions),
            TopologyApplication.streamsProperties(config),
            START);
    input =
        driver.createInputTopic(
            config.topic(TopicCatalogue.DEVICE_EVENTS_RAW),
            new StringSerializer(),
            new ByteArraySerializer());
    sessions = outputTopic(config, TopicCatalogue.DEVICE_SESSIONS);
    rejected = outputTopic(config, TopicCatalogue.REJECTED_EVENTS);
    serviceBus = inputTopic(config, TopicCatalogue.SERVICEBUS_MESSAGES_RAW);
    mergeResults = outputTopic(config, TopicCatalogue.MERGE_RESULTS);
    postMerge = outputTopic(config, TopicCatalogue.POST_MERGE);
  }

  private TestInputTopic<String, byte[]> inputTopic(TopologyConfig config, Topic topic) {
    return driver.createInputTopic(
        config.topic(topic), new StringSerializer(), new ByteArraySerializer());
  }

  /**
   * Every record a test reads from an output topic is checked against its contract on the way: its
   * value validates against the topic's schema and a standard CloudEvents consumer can read it.
   */
  private TestOutputTopic<String, byte[]> outputTopic(TopologyConfig config, Topic topic) {
    return driver.createOutputTopic(
        config.topic(topic), new StringDeserializer(), new ContractCheckingDeserializer(topic));
  }

  /**
   * Sends a Service Bus message as the adapter writes it: key {@code sessionId}, CloudEvents and
   * Service Bus headers, application property {@code mergeKey} unless {@code mergeKey} is null.
   */
  void sendServiceBus(
      String key, String messageId, long sequenceNumber, String mergeKey, byte[] body) {
    sendServiceBus(key, messageId, sequenceNumber, mergeKey, body, START);
  }

  /** {@link #sendServiceBus(String, String, long, String, byte[])} arriving at {@code arrival}. */
  void sendServiceBus(
      String key,
      String messageId,
      long sequenceNumber,
      String mergeKey,
      byte[] body,
      Instant arrival) {
    RecordHeaders headers = new RecordHeaders();
    addHeader(headers, CloudEventHeaders.SPEC_VERSION, "1.0");
    addHeader(headers, CloudEventHeaders.ID, messageId);
    addHeader(headers, CloudEventHeaders.SOURCE, ServiceBusHeaders.source("ns", "billing"));
    addHeader(headers, CloudEventHeaders.TYPE, ServiceBusHeaders.MESSAGE_TYPE);
    addHeader(headers, CloudEventHeaders.TIME, START.toString());
    addHeader(headers, ServiceBusHeaders.SEQUENCE_NUMBER, Long.toString(sequenceNumber));
    addHeader(headers, ServiceBusHeaders.ENTITY, "billing");
    if (mergeKey != null) {
      addHeader(headers, ServiceBusHeaders.property("mergeKey"), mergeKey);
    }
    serviceBus.pipeInput(new TestRecord<>(key, body, headers, arrival));
  }

  private static void addHeader(RecordHeaders headers, String name, String value) {
    headers.add(name, value.getBytes(StandardCharsets.UTF_8));
  }

  List<JsonNode> postMergeOutputs() {
    return postMerge.readValuesToList().stream().map(TopologyFixture::tree).toList();
  }

  static DeviceEvent event(
      String device, String id, DeviceEventType type, String ref, OffsetDateTime at) {
    return new DeviceEvent(device, id, type, at, ref, null, START);
  }

  /** Sends an event as the bridge writes it, arriving at {@code arrival}. */
  void send(DeviceEvent event, Instant arrival) {
    RecordHeaders headers = new RecordHeaders();
    headers.add(
        CloudEventHeaders.SOURCE,
        CloudEventHeaders.deviceSource(event.deviceId()).getBytes(StandardCharsets.UTF_8));
    headers.add(CloudEventHeaders.ID, event.eventId().getBytes(StandardCharsets.UTF_8));
    input.pipeInput(new TestRecord<>(event.deviceId(), json(event), headers, arrival));
  }

  void send(DeviceEvent event) {
    send(event, START);
  }

  List<DeviceSessionEvent> sessionEvents() {
    return sessions.readValuesToList().stream()
        .map(v -> read(v, DeviceSessionEvent.class))
        .toList();
  }

  List<RejectedEvent> rejections() {
    return rejected.readValuesToList().stream().map(v -> read(v, RejectedEvent.class)).toList();
  }

  static byte[] json(Object value) {
    try {
      return Json.mapper().writeValueAsBytes(value);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static <T> T read(byte[] value, Class<T> type) {
    try {
      return Json.mapper().readValue(value, type);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static JsonNode tree(byte[] value) {
    return read(value, JsonNode.class);
  }

  @Override
  public void close() {
    driver.close();
  }
}
