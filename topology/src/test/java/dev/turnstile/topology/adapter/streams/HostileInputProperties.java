package dev.turnstile.topology.adapter.streams;

import static org.assertj.core.api.Assertions.assertThat;

import dev.turnstile.schemas.CloudEventHeaders;
import dev.turnstile.schemas.RejectedEvent;
import dev.turnstile.schemas.RejectionReason;
import dev.turnstile.schemas.ServiceBusHeaders;
import dev.turnstile.schemas.TopicCatalogue;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterTry;
import net.jqwik.api.lifecycle.BeforeTry;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.test.TestRecord;

/**
 * Issue 8's general test: arbitrary and hostile records on every topic the topology reads (both raw
 * topics, and the hop, merge-inputs.v1, anyone with write access could also write to), through the
 * production topology. Whatever the bytes, headers and timestamps:
 *
 * <ul>
 *   <li>nothing escapes (the driver would rethrow what stopped a stream thread);
 *   <li>no rejection is {@code PROCESSING_FAILED}: every hostile kind is met by a rule with its own
 *       reason, not by the safety net;
 *   <li>each input record has at most one rejection, and each record built to be unreadable has
 *       exactly one;
 *   <li>every output record validates against its topic's schema and reads as a CloudEvent (the
 *       fixture's output topics check each record they read).
 * </ul>
 */
class HostileInputProperties {

  private static final Instant NOW = TopologyFixture.START;
  private Path dir;

  @BeforeTry
  void stateDir() throws Exception {
    dir = Files.createTempDirectory("turnstile-hostile");
  }

  @AfterTry
  void cleanUp() throws Exception {
    try (var files = Files.walk(dir)) {
      files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }

  /** One record for one input topic; {@code unreadable} when it was built to be refused. */
  record Input(
      String topic,
      String key,
      byte[] value,
      Map<String, byte[]> headers,
      long timestamp,
      boolean unreadable) {
    @Override
    public String toString() {
      String shown = value == null ? "null" : new String(value, StandardCharsets.UTF_8);
      return topic
          + " key="
          + key
          + " ts="
          + timestamp
          + " headers="
          + headers.keySet()
          + " value="
          + (shown.length() > 120
              ? shown.substring(0, 120) + "...(" + value.length + " B)"
              : shown);
    }
  }

  @Property(tries = 40)
  void noInputStopsTheTopologyOrBreaksAnOutputContract(@ForAll("inputs") List<Input> inputs) {
    try (TopologyFixture t = new TopologyFixture(dir)) {
      Map<String, TestInputTopic<String, byte[]>> topics = new HashMap<>();
      List<Long> offsets = new ArrayList<>();
      Map<String, Long> next = new HashMap<>();
      for (Input in : inputs) {
        TestInputTopic<String, byte[]> topic =
            topics.computeIfAbsent(
                in.topic(),
                name ->
                    t.driver.createInputTopic(
                        name, new StringSerializer(), new ByteArraySerializer()));
        RecordHeaders headers = new RecordHeaders();
        in.headers().forEach(headers::add);
        topic.pipeInput(new TestRecord<>(in.key(), in.value(), headers, in.timestamp()));
        offsets.add(next.merge(in.topic(), 1L, Long::sum) - 1);
      }
      t.driver.advanceWallClockTime(Duration.ofDays(4));

      List<RejectedEvent> rejections = t.rejections();
      t.sessionEvents();
      t.mergeResults.readValuesToList();
      t.postMergeOutputs();

      assertThat(rejections)
          .as("no hostile input should reach the safety net")
          .noneMatch(r -> r.reason() == RejectionReason.PROCESSING_FAILED);
      Map<String, Long> perInput =
          rejections.stream()
              .filter(r -> r.sourceTopic() != null)
              .collect(
                  Collectors.groupingBy(
                      r -> r.sourceTopic() + "@" + r.sourceOffset(), Collectors.counting()));
      assertThat(perInput.values()).as("rejections per input record").allMatch(n -> n == 1);
      for (int i = 0; i < inputs.size(); i++) {
        Input in = inputs.get(i);
        if (in.unreadable()) {
          assertThat(perInput)
              .as("an unreadable record gets exactly one rejection: %s", in)
              .containsEntry(in.topic() + "@" + offsets.get(i), 1L);
        }
      }
    }
  }

  @Provide
  Arbitrary<List<Input>> inputs() {
    return Arbitraries.oneOf(
            deviceEvents(), deviceEvents(), serviceBus(), serviceBus(), mergeInputs())
        .list()
        .ofMinSize(1)
        .ofMaxSize(25);
  }

  // ---- device-events.raw.v1 ----

  private Arbitrary<Input> deviceEvents() {
    Arbitrary<String> device = Arbitraries.of("st-1", "st-2", "st-\u00e9", "");
    return Combinators.combine(
            device,
            deviceValue(),
            identityHeaders(),
            timestamps(),
            Arbitraries.integers().between(0, 9))
        .as(
            (d, value, headers, ts, keyChoice) -> {
              String key = keyChoice == 0 ? null : keyChoice == 1 ? "other" : d;
              boolean unreadable =
                  value.unreadable()
                      || !headers.containsKey(CloudEventHeaders.ID)
                      || !headers.containsKey(CloudEventHeaders.SOURCE)
                      || (value.wellFormedEvent() && !d.equals(key));
              byte[] bytes = value.bytes(d);
              return new Input(
                  TopicCatalogue.DEVICE_EVENTS_RAW.baseName(), key, bytes, headers, ts, unreadable);
            });
  }

  /** A value generator that knows whether what it builds can be read as a device event. */
  interface DeviceValue {
    byte[] bytes(String device);

    boolean unreadable();

    boolean wellFormedEvent();
  }

  private Arbitrary<DeviceValue> deviceValue() {
    Arbitrary<DeviceValue> valid =
        Combinators.combine(
                Arbitraries.of("Started", "Finished"),
                Arbitraries.of("e1", "e2", "e3", "e4"),
                Arbitraries.of("r1", "r2", null),
                occurredAt(),
                attributes())
            .as(
                (type, id, ref, at, attrs) ->
                    new DeviceValue() {
                      @Override
                      public byte[] bytes(String device) {
                        String body =
                            "{\"deviceId\":"
                                + quote(device)
                                + ",\"eventId\":\""
                                + id
                                + "\",\"type\":\""
                                + type
                                + "\",\"occurredAt\":\""
                                + at
                                + "\""
                                + (ref == null ? "" : ",\"sessionRef\":\"" + ref + "\"")
                                + (attrs == null ? "" : ",\"attributes\":" + attrs)
                                + ",\"receivedAt\":\""
                                + NOW
                                + "\"}";
                        return body.getBytes(StandardCharsets.UTF_8);
                      }

                      @Override
                      public boolean unreadable() {
                        return false;
                      }

                      @Override
                      public boolean wellFormedEvent() {
                        return true;
                      }
                    });
    Arbitrary<DeviceValue> broken =
        hostileBytes()
            .map(
                bytes ->
                    new DeviceValue() {
                      @Override
                      public byte[] bytes(String device) {
                        return bytes;
                      }

                      @Override
                      public boolean unreadable() {
                        return true;
                      }

                      @Override
                      public boolean wellFormedEvent() {
                        return false;
                      }
                    });
    // Issue 8, case 1: a well-formed Started whose attributes nest past what every later stage can
    // wrap and write (Jackson's writer stops at 1000 levels).
    Arbitrary<DeviceValue> deep =
        Arbitraries.of(65, 999, 1500)
            .map(
                depth ->
                    new DeviceValue() {
                      @Override
                      public byte[] bytes(String device) {
                        return ("{\"deviceId\":"
                                + quote(device)
                                + ",\"eventId\":\"deep\",\"type\":\"Started\",\"occurredAt\":\""
                                + NOW
                                + "\",\"attributes\":"
                                + "{\"a\":".repeat(depth - 2)
                                + "{}"
                                + "}".repeat(depth - 2)
                                + "}")
                            .getBytes(StandardCharsets.UTF_8);
                      }

                      @Override
                      public boolean unreadable() {
                        return true;
                      }

                      @Override
                      public boolean wellFormedEvent() {
                        return true;
                      }
                    });
    return Arbitraries.frequencyOf(
        net.jqwik.api.Tuple.of(3, valid),
        net.jqwik.api.Tuple.of(2, broken),
        net.jqwik.api.Tuple.of(1, deep));
  }

  private Arbitrary<String> occurredAt() {
    return Arbitraries.of(
        "2026-11-30T08:00:00Z",
        "2026-11-30T09:30:00+01:00",
        "2026-11-30T07:00:00-05:00",
        "0001-01-01T00:00:00Z",
        "9999-12-31T23:59:59Z");
  }

  /** Attributes within the strict reader's bounds (deeper ones are in {@link #hostileBytes}). */
  private Arbitrary<String> attributes() {
    return Arbitraries.of(
        null,
        "{}",
        "{\"v\":1}",
        "{\"n\":1e400,\"s\":\"\\u00e9\\uD83D\\uDE00\"}",
        "{\"d\":" + "{\"a\":".repeat(40) + "1" + "}".repeat(40) + "}",
        "{\"big\":\"" + "x".repeat(20_000) + "\"}",
        "{\"null\":null,\"arr\":[1,[2,[3]]]}");
  }

  // ---- servicebus-messages.raw.v1 ----

  private Arbitrary<Input> serviceBus() {
    Arbitrary<String> body =
        Arbitraries.of(
            "{\"sessionId\":\"k1\",\"userId\":\"u\",\"kwhTotal\":4.0,\"dollars\":1.00}",
            "{\"sessionId\":\"k1\",\"userId\":\"u\",\"kwhTotal\":\"4.0\",\"dollars\":\"1.00\"}",
            "{\"sessionId\":\"k1\",\"kwhTotal\":1e400}",
            "{\"sessionId\":\"k1\",\"userId\":{\"id\":1},\"kwhTotal\":null}",
            "{\"startedAt\":\"2026-11-30 08:00:00\"}",
            "{\"durationMillis\":1e400}",
            "{\"station\":null}",
            "[1,2,3]",
            "\"text\"");
    Arbitrary<byte[]> bodies =
        Arbitraries.oneOf(body.map(s -> s.getBytes(StandardCharsets.UTF_8)), hostileBytes());
    Arbitrary<String> mergeKey = Arbitraries.of("k1", "k2", "", " ", null);
    Arbitrary<String> sequence =
        Arbitraries.of("1", "2", "17", "-5", "x", "99999999999999999999", null);
    // Keyed by its merge key, a message is merged in place; keyed otherwise, through the hop.
    Arbitrary<String> recordKey = Arbitraries.of("k", "k1");
    return Combinators.combine(
            bodies, mergeKey, sequence, identityHeaders(), timestamps(), recordKey)
        .as(
            (b, key, seq, headers, ts, recordKeyChosen) -> {
              Map<String, byte[]> all = new HashMap<>(headers);
              if (key != null) {
                all.put(ServiceBusHeaders.property("mergeKey"), utf8(key));
              }
              if (seq != null) {
                all.put(ServiceBusHeaders.SEQUENCE_NUMBER, utf8(seq));
              }
              boolean unreadable =
                  !headers.containsKey(CloudEventHeaders.ID)
                      || !headers.containsKey(CloudEventHeaders.SOURCE);
              return new Input(
                  TopicCatalogue.SERVICEBUS_MESSAGES_RAW.baseName(),
                  recordKeyChosen,
                  b,
                  all,
                  ts,
                  unreadable);
            });
  }

  // ---- the hop, which anyone with write access can also write to ----

  private Arbitrary<Input> mergeInputs() {
    Arbitrary<String> value =
        Arbitraries.of(
            "{\"mergeKey\":\"k1\",\"patch\":{\"source\":\"/x\",\"eventId\":\"1\",\"version\":{\"explicit\":1},\"body\":{\"a\":1}}}",
            "{\"mergeKey\":\"k1\",\"patch\":null}",
            "{\"mergeKey\":\"k2\"}",
            "{}");
    return Combinators.combine(
            Arbitraries.oneOf(value.map(StandardCharsetsHelper::utf8), hostileBytes()),
            identityHeaders(),
            timestamps())
        .as((v, h, ts) -> new Input(TopicCatalogue.MERGE_INPUTS.baseName(), "k1", v, h, ts, false));
  }

  // ---- shared pieces ----

  private Arbitrary<Map<String, byte[]>> identityHeaders() {
    Arbitrary<byte[]> id =
        Arbitraries.of(
            utf8("e1"), utf8("e2"), utf8(""), new byte[] {(byte) 0xff, (byte) 0xfe}, null);
    Arbitrary<byte[]> source =
        Arbitraries.of(utf8("/devices/st-1"), utf8("/servicebus/ns/billing"), utf8(""), null);
    return Combinators.combine(id, source)
        .as(
            (i, s) -> {
              Map<String, byte[]> headers = new HashMap<>();
              if (i != null && i.length > 0) {
                headers.put(CloudEventHeaders.ID, i);
              }
              if (s != null && s.length > 0) {
                headers.put(CloudEventHeaders.SOURCE, s);
              }
              return headers;
            });
  }

  private Arbitrary<Long> timestamps() {
    long now = NOW.toEpochMilli();
    // -1 cannot be piped (the driver, like every Java producer, refuses it);
    // UsableTimestampExtractorTest
    // covers it.
    return Arbitraries.of(0L, now, now + 1, now + Duration.ofDays(3650).toMillis(), now - 5);
  }

  /** What no stage can read: not JSON, not I-JSON, or past the reader's bounds. */
  static Arbitrary<byte[]> hostileBytes() {
    return Arbitraries.of(
            new byte[0],
            utf8("not json"),
            utf8("{\"a\":1} {\"a\":2}"),
            utf8("{\"a\":1,\"a\":2}"),
            utf8("{\"a\":\"\\uD800\"}"),
            new byte[] {'{', '"', 'a', '"', ':', '"', (byte) 0xc3, '"', '}'},
            utf8("{\"a\":" + "[".repeat(1000) + "]".repeat(1000) + "}"),
            utf8("{\"a\":1e1000000000}"),
            utf8("{\"a\":" + "9".repeat(150) + "}"),
            new byte[1 << 20])
        .injectNull(0.05);
  }

  private static String quote(String text) {
    return "\"" + text.replace("\"", "\\\"") + "\"";
  }

  static byte[] utf8(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  private static final class StandardCharsetsHelper {
    static byte[] utf8(String text) {
      return text.getBytes(StandardCharsets.UTF_8);
    }
  }
}
