package dev.turnstile.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.azure.core.util.BinaryData;
import com.azure.messaging.servicebus.ServiceBusClientBuilder;
import com.azure.messaging.servicebus.ServiceBusMessage;
import com.azure.messaging.servicebus.ServiceBusSenderClient;
import com.fasterxml.jackson.databind.JsonNode;
import dev.turnstile.local.HostileCorpus.Category;
import dev.turnstile.local.HostileCorpus.Entry;
import dev.turnstile.schemas.Json;
import dev.turnstile.schemas.TopicCatalogue;
import dev.turnstile.testkit.servicebus.BrokeredMessage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 8's second general test: the hostile corpus ({@link HostileCorpus}) against the bridge and
 * the topology running on a real broker and the Service Bus double, with valid traffic between the
 * bad inputs. Each entry must get its stated answer (an HTTP status and problem type, a dead-letter
 * reason, or for what is relayed the topology's rejection reason or its processing); both processes
 * stay live; every valid session is closed exactly once and settled with its billing; and a second
 * pass of the whole corpus leaves heap after GC and RSS flat.
 *
 * <p>{@code -Dcorpus.only=<regex>} runs only the entries whose {@code category/name} matches, for
 * diagnosis; the full run is the test.
 */
@Timeout(value = 15, unit = TimeUnit.MINUTES)
class HostileCorpusIT {

  /** Application property the harness adds to each Service Bus entry to find its raw record. */
  static final String CORPUS_PROPERTY = "corpusEntry";

  /** Growth allowed across the second pass: state the topology keeps for new ids is legitimate. */
  private static final long HEAP_TOLERANCE_BYTES = 32L << 20;

  private static final long RSS_TOLERANCE_BYTES = 128L << 20;
  private static final Duration HTTP_TIMEOUT = Duration.ofSeconds(20);
  private static final Duration SETTLE = Duration.ofSeconds(90);

  /** One valid session (two HTTP events and a billing message) after every this many entries. */
  private static final int VALID_EVERY = 4;

  private static LocalStack stack;
  private static CorpusOutputs outputs;
  private static ServiceBusSenderClient sender;
  private static KafkaProducer<String, byte[]> rawProducer;

  @BeforeAll
  static void start() throws InterruptedException {
    stack =
        LocalStack.start(
            0,
            Map.of(
                "bridge.http.header-timeout-ms",
                "2000",
                "bridge.http.body-timeout-ms",
                "2000",
                // The corpus is about what the bridge makes of hostile input once a request is
                // let in, and some entries are raw bytes a token cannot be put into: the door
                // itself (401, 403, malformed Authorization) has DeviceAuthenticationIT.
                "bridge.auth.enabled",
                "false",
                // The Service Bus entries test what an entity without a body schema relays and
                // how the topology answers it; the billing schema has SendBillingIT.
                "bridge.servicebus.entity." + LocalStack.BILLING_QUEUE + ".schema",
                "",
                // RocksDB may fill its whole memory bound as the passes go: keep that bound
                // small here so the RSS check measures what a leak would add, not the cache.
                "kafka.streams.turnstile.rocksdb.total.bytes",
                Long.toString(32L << 20)));
    outputs = new CorpusOutputs(stack.bootstrapServers());
    sender =
        new ServiceBusClientBuilder()
            .connectionString(stack.serviceBus().connectionString())
            .sender()
            .queueName(LocalStack.BILLING_QUEUE)
            .buildClient();
    rawProducer =
        new KafkaProducer<>(
            Map.of("bootstrap.servers", stack.bootstrapServers()),
            new StringSerializer(),
            new ByteArraySerializer());
  }

  @AfterAll
  static void stop() {
    for (AutoCloseable closeable : new AutoCloseable[] {rawProducer, sender, outputs, stack}) {
      try {
        if (closeable != null) {
          closeable.close();
        }
      } catch (Exception e) {
        // Closing after a failure: the failure is what matters.
      }
    }
  }

  @Test
  void everyHostileInputGetsItsAnswerAndNothingElseChanges() throws Exception {
    Map<Category, List<Entry>> corpus = selected(HostileCorpus.load());
    printSizes(corpus);
    List<String> failures = new ArrayList<>();

    Pass first = run(1, corpus, failures);
    Memory afterFirst = Memory.measure();
    Pass second = run(2, corpus, failures);
    Memory afterSecond = Memory.measure();

    System.out.printf(
        "hostile corpus: pass 1 %d entries + %d valid sessions in %d s; pass 2 %d + %d in %d s%n"
            + "heap after GC %d -> %d MiB (tolerance +%d), RSS %d -> %d MiB (tolerance +%d)%n",
        first.entries,
        first.validSessions,
        first.seconds,
        second.entries,
        second.validSessions,
        second.seconds,
        afterFirst.heapBytes >> 20,
        afterSecond.heapBytes >> 20,
        HEAP_TOLERANCE_BYTES >> 20,
        afterFirst.rssBytes >> 20,
        afterSecond.rssBytes >> 20,
        RSS_TOLERANCE_BYTES >> 20);
    assertThat(failures).as(String.join("\n", failures)).isEmpty();
    assertThat(afterSecond.heapBytes - afterFirst.heapBytes).isLessThan(HEAP_TOLERANCE_BYTES);
    assertThat(afterSecond.rssBytes - afterFirst.rssBytes).isLessThan(RSS_TOLERANCE_BYTES);
  }

  private record Pass(int entries, int validSessions, long seconds) {}

  /** Where a relayed input must end in the topology. */
  private record Relayed(
      String label, String expected, String source, String eventId, Object raw) {}

  private static Pass run(int pass, Map<Category, List<Entry>> corpus, List<String> failures)
      throws Exception {
    long start = System.nanoTime();
    List<Relayed> relayed = new ArrayList<>();
    Map<String, Entry> sentToServiceBus = new HashMap<>();
    List<String> validRefs = new ArrayList<>();
    int sent = 0;
    for (List<Entry> entries : corpus.values()) {
      for (Entry entry : entries) {
        Map<String, String> values = placeholders(pass, entry);
        try {
          switch (entry.category()) {
            case RAW_KAFKA_RECORDS -> relayed.add(produceRaw(entry, values));
            case SERVICEBUS_BODIES, SERVICEBUS_PROPERTIES, SERVICEBUS_CONTENT_TYPES -> {
              sendToServiceBus(entry, values);
              sentToServiceBus.put(values.get("id"), entry);
            }
            default -> checkHttp(entry, values, relayed, failures);
          }
        } catch (Exception | AssertionError e) {
          failures.add(entry.label() + " (pass " + pass + "): " + e);
        }
        if (++sent % VALID_EVERY == 0) {
          validRefs.add(sendValidSession(pass, validRefs.size()));
        }
      }
    }
    checkServiceBus(pass, sentToServiceBus, relayed, failures);
    checkRelayed(pass, relayed, failures);
    checkValidTraffic(pass, validRefs, failures);
    checkLive(pass, failures);
    return new Pass(sent, validRefs.size(), (System.nanoTime() - start) / 1_000_000_000L);
  }

  // --- HTTP ---

  private static void checkHttp(
      Entry entry, Map<String, String> values, List<Relayed> relayed, List<String> failures)
      throws IOException {
    for (JsonNode before : entry.before()) {
      RawHttp.Answer answer = exchange(postEvent(values, render(before.asText(), values)));
      if (answer.status() / 100 != 2) {
        failures.add(
            entry.label() + ": a setup request got " + answer.status() + " " + answer.body());
      }
    }
    RawHttp.Answer answer = exchange(request(entry.spec(), values));
    JsonNode expect = entry.expect();
    if (expect.path("closed").asBoolean()) {
      if (!answer.closedWithoutAnswer()) {
        failures.add(entry.label() + ": expected a close without answer, got " + answer.status());
      }
      return;
    }
    int status = expect.path("status").asInt();
    if (answer.status() != status) {
      failures.add(
          entry.label()
              + ": expected "
              + status
              + ", got "
              + answer.status()
              + " "
              + answer.body());
      return;
    }
    String problem = expect.path("problem").asText(null);
    if (problem != null) {
      String type = type(answer);
      if (!("https://turnstile.dev/problems/" + problem).equals(type)
          || !"application/problem+json".equals(answer.headers().get("content-type"))) {
        failures.add(entry.label() + ": expected problem " + problem + ", got " + type);
      }
    }
    String topology = expect.path("topology").asText(null);
    if (topology != null) {
      String eventId = Json.mapper().readTree(answer.body()).path("eventId").asText();
      relayed.add(
          new Relayed(entry.label(), topology, "/devices/" + values.get("device"), eventId, null));
    }
  }

  private static String type(RawHttp.Answer answer) {
    try {
      return Json.mapper().readTree(answer.body()).path("type").asText(null);
    } catch (IOException notJson) {
      return "(not JSON: " + answer.body() + ")";
    }
  }

  private static RawHttp.Answer exchange(byte[] request) throws IOException {
    return RawHttp.exchange(stack.httpPort(), request, HTTP_TIMEOUT);
  }

  /** The request bytes: a raw text as it is, else method, path, headers and body assembled. */
  private static byte[] request(JsonNode spec, Map<String, String> values) {
    if (spec.has("raw")) {
      String raw = render(spec.get("raw").asText(), values);
      int head = raw.indexOf("\r\n\r\n") >= 0 ? raw.indexOf("\r\n\r\n") + 4 : raw.indexOf("\n\n");
      if (head >= 0 && raw.contains("{{len}}")) {
        int bodyStart = raw.startsWith("\n\n", head) ? head + 2 : head;
        raw = raw.replace("{{len}}", Integer.toString(raw.length() - bodyStart));
      }
      return raw.getBytes(StandardCharsets.ISO_8859_1);
    }
    byte[] body =
        spec.has("bodyBase64")
            ? Base64.getDecoder().decode(spec.get("bodyBase64").asText())
            : render(spec.path("body").asText(""), values).getBytes(StandardCharsets.UTF_8);
    StringBuilder head =
        new StringBuilder()
            .append(spec.path("method").asText("POST"))
            .append(' ')
            .append(render(spec.path("path").asText(), values))
            .append(" HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n");
    boolean chunked = false;
    for (JsonNode header : spec.path("headers")) {
      head.append(header.get(0).asText())
          .append(": ")
          .append(header.get(1).asText())
          .append("\r\n");
      chunked |= header.get(1).asText().equalsIgnoreCase("chunked");
    }
    String marker = "⟦chunked⟧";
    if (chunked && new String(body, StandardCharsets.UTF_8).startsWith(marker)) {
      body = chunk(new String(body, StandardCharsets.UTF_8).substring(marker.length()));
    }
    if (!spec.path("noContentLength").asBoolean()) {
      head.append("Content-Length: ").append(body.length).append("\r\n");
    }
    head.append("\r\n");
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.writeBytes(head.toString().getBytes(StandardCharsets.ISO_8859_1));
    out.writeBytes(body);
    return out.toByteArray();
  }

  private static byte[] chunk(String body) {
    StringBuilder chunked = new StringBuilder();
    for (int i = 0; i < body.length(); i += 10) {
      String part = body.substring(i, Math.min(body.length(), i + 10));
      chunked.append(Integer.toHexString(part.length())).append("\r\n").append(part).append("\r\n");
    }
    return chunked.append("0\r\n\r\n").toString().getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] postEvent(Map<String, String> values, String body) {
    return (("POST /api/v1/devices/" + values.get("device") + "/events HTTP/1.1\r\n")
            + "Host: 127.0.0.1\r\nConnection: close\r\nContent-Type: application/json\r\n"
            + "Content-Length: "
            + body.getBytes(StandardCharsets.UTF_8).length
            + "\r\n\r\n"
            + body)
        .getBytes(StandardCharsets.UTF_8);
  }

  // --- Service Bus ---

  private static void sendToServiceBus(Entry entry, Map<String, String> values) {
    JsonNode spec = entry.spec();
    byte[] body =
        spec.has("bodyBase64")
            ? Base64.getDecoder().decode(spec.get("bodyBase64").asText())
            : render(spec.path("body").asText(""), values).getBytes(StandardCharsets.UTF_8);
    ServiceBusMessage message =
        new ServiceBusMessage(BinaryData.fromBytes(body)).setMessageId(values.get("id"));
    if (spec.hasNonNull("contentType")) {
      message.setContentType(render(spec.get("contentType").asText(), values));
    }
    if (spec.hasNonNull("subject")) {
      message.setSubject(render(spec.get("subject").asText(), values));
    }
    if (spec.hasNonNull("correlationId")) {
      message.setCorrelationId(render(spec.get("correlationId").asText(), values));
    }
    Map<String, Object> properties = message.getApplicationProperties();
    properties.put(BillingPublisher.MERGE_KEY_PROPERTY, values.get("ref"));
    properties.put(CORPUS_PROPERTY, values.get("id"));
    spec.path("properties")
        .fields()
        .forEachRemaining(
            p -> {
              if (p.getValue().isNull()) {
                properties.remove(p.getKey());
              } else {
                properties.put(p.getKey(), typed(p.getValue(), values));
              }
            });
    sender.sendMessage(message);
  }

  /** A property value: a string, or {@code {"int"|"long"|"double"|"boolean": "text"}}. */
  private static Object typed(JsonNode value, Map<String, String> values) {
    if (value.isTextual()) {
      return render(value.asText(), values);
    }
    var typed = value.fields().next();
    String text = render(typed.getValue().asText(), values);
    return switch (typed.getKey()) {
      case "int" -> Integer.valueOf(text);
      case "long" -> Long.valueOf(text);
      case "double" -> Double.valueOf(text);
      case "boolean" -> Boolean.valueOf(text);
      default -> throw new IllegalArgumentException("unknown property type " + typed.getKey());
    };
  }

  private static void checkServiceBus(
      int pass, Map<String, Entry> sent, List<Relayed> relayed, List<String> failures) {
    String queue = LocalStack.BILLING_QUEUE;
    try {
      await()
          .atMost(SETTLE)
          .until(
              () -> {
                Set<String> active =
                    stack.serviceBus().activeMessages(queue).stream()
                        .map(BrokeredMessage::messageId)
                        .collect(Collectors.toSet());
                return sent.keySet().stream().noneMatch(active::contains);
              });
    } catch (RuntimeException e) {
      failures.add("pass " + pass + ": Service Bus messages still unsettled: " + e.getMessage());
    }
    Map<String, BrokeredMessage> dead =
        stack.serviceBus().deadLetters(queue).stream()
            .filter(m -> m.messageId() != null)
            .collect(Collectors.toMap(BrokeredMessage::messageId, m -> m, (a, b) -> a));
    for (Map.Entry<String, Entry> message : sent.entrySet()) {
      Entry entry = message.getValue();
      String id = message.getKey();
      String expectedDeadLetter = entry.expect().path("deadLetter").asText(null);
      BrokeredMessage deadLettered = dead.get(id);
      if (expectedDeadLetter != null) {
        String got = deadLettered == null ? "not dead-lettered" : deadLettered.deadLetterReason();
        if (!expectedDeadLetter.equals(got)) {
          failures.add(
              entry.label() + ": expected dead-letter " + expectedDeadLetter + ", got " + got);
        }
        continue;
      }
      if (deadLettered != null) {
        failures.add(
            entry.label()
                + ": expected relayed, dead-lettered "
                + deadLettered.deadLetterReason()
                + ": "
                + deadLettered.deadLetterErrorDescription());
        continue;
      }
      relayed.add(
          new Relayed(entry.label(), entry.expect().path("relayed").asText(), null, null, id));
    }
  }

  // --- raw Kafka records: the extension point for the topology's own corpus ---

  private static Relayed produceRaw(Entry entry, Map<String, String> values) throws Exception {
    JsonNode spec = entry.spec();
    byte[] value =
        spec.has("valueBase64")
            ? Base64.getDecoder().decode(spec.get("valueBase64").asText())
            : spec.has("value")
                ? render(spec.get("value").asText(), values).getBytes(StandardCharsets.UTF_8)
                : null;
    ProducerRecord<String, byte[]> record =
        new ProducerRecord<>(
            spec.get("topic").asText(),
            null,
            spec.has("timestamp") ? spec.get("timestamp").asLong() : null,
            spec.hasNonNull("key") ? render(spec.get("key").asText(), values) : null,
            value);
    spec.path("headers")
        .fields()
        .forEachRemaining(
            h ->
                record
                    .headers()
                    .add(
                        h.getKey(),
                        render(h.getValue().asText(), values).getBytes(StandardCharsets.UTF_8)));
    RecordMetadata written = rawProducer.send(record).get(30, TimeUnit.SECONDS);
    JsonNode id = spec.path("headers").get("ce_id");
    JsonNode source = spec.path("headers").get("ce_source");
    return new Relayed(
        entry.label(),
        entry.expect().path("rejected").asText("processed"),
        source == null ? null : render(source.asText(), values),
        id == null ? null : render(id.asText(), values),
        written);
  }

  // --- the topology's answer to what was relayed ---

  private static void checkRelayed(int pass, List<Relayed> relayed, List<String> failures) {
    Map<Relayed, String> outcomes = new HashMap<>();
    try {
      await()
          .atMost(SETTLE)
          .pollInSameThread()
          .until(
              () -> {
                outputs.poll();
                for (Relayed r : relayed) {
                  outcomes.computeIfAbsent(r, HostileCorpusIT::outcome);
                }
                return outcomes.size() == relayed.size();
              });
    } catch (RuntimeException timedOut) {
      // Reported per entry below.
    }
    for (Relayed r : relayed) {
      String got = outcomes.getOrDefault(r, "no outcome within " + SETTLE.toSeconds() + " s");
      if (!r.expected().equals(got)) {
        failures.add(r.label() + " (pass " + pass + "): expected " + r.expected() + ", got " + got);
      }
    }
  }

  /** {@code processed}, a rejection reason, or null while neither is visible. */
  private static String outcome(Relayed r) {
    if (r.raw() instanceof String corpusId) {
      var record = outputs.serviceBusRecord(corpusId);
      if (record == null) {
        return null;
      }
      String source = CorpusOutputs.header(record, "ce_source");
      String id = CorpusOutputs.header(record, "ce_id");
      String reason = outputs.rejectionReason(id, record);
      return reason != null ? reason : outputs.merged(source, id) ? "processed" : null;
    }
    if (r.raw() instanceof RecordMetadata written) {
      String reason = outputs.rejectionReason(r.eventId(), toConsumerShape(written));
      if (reason != null || r.eventId() == null) {
        return reason;
      }
      boolean processed =
          written.topic().equals(TopicCatalogue.DEVICE_EVENTS_RAW.baseName())
              ? outputs.sessionMentions(r.eventId())
              : r.source() != null && outputs.merged(r.source(), r.eventId());
      return processed ? "processed" : null;
    }
    String reason = outputs.rejectionReason(r.eventId(), null);
    return reason != null ? reason : outputs.sessionMentions(r.eventId()) ? "processed" : null;
  }

  private static org.apache.kafka.clients.consumer.ConsumerRecord<String, byte[]> toConsumerShape(
      RecordMetadata written) {
    return new org.apache.kafka.clients.consumer.ConsumerRecord<>(
        written.topic(), written.partition(), written.offset(), null, null);
  }

  // --- valid traffic between the bad inputs ---

  private static String sendValidSession(int pass, int n) throws IOException {
    String ref = "valid-" + pass + "-" + n;
    Map<String, String> values = Map.of("device", "station-" + pass + "-" + n);
    Instant finished = Instant.now().truncatedTo(ChronoUnit.SECONDS);
    for (String body :
        List.of(
            event(ref + "-s", "Started", finished.minus(Duration.ofMinutes(90)), ref),
            event(ref + "-f", "Finished", finished, ref))) {
      RawHttp.Answer answer = exchange(postEvent(values, body));
      if (answer.status() != 202) {
        throw new AssertionError("a valid event got " + answer.status() + " " + answer.body());
      }
    }
    ServiceBusMessage billing =
        new ServiceBusMessage(
                "{\"sessionId\":\""
                    + ref
                    + "\",\"userId\":\"u-"
                    + n
                    + "\",\"kwhTotal\":1.50,\"dollars\":"
                    + dollars(n)
                    + "}")
            .setMessageId("billing-" + ref)
            .setContentType("application/json");
    billing.getApplicationProperties().put(BillingPublisher.MERGE_KEY_PROPERTY, ref);
    sender.sendMessage(billing);
    return ref;
  }

  private static String dollars(int n) {
    return "0." + String.format("%02d", n % 100);
  }

  private static String event(String id, String type, Instant at, String ref) {
    return "{\"eventId\":\""
        + id
        + "\",\"type\":\""
        + type
        + "\",\"occurredAt\":\""
        + at
        + "\",\"sessionRef\":\""
        + ref
        + "\"}";
  }

  private static void checkValidTraffic(int pass, List<String> refs, List<String> failures) {
    try {
      await()
          .atMost(SETTLE)
          .pollInSameThread()
          .until(
              () -> {
                outputs.poll();
                return refs.stream()
                    .allMatch(r -> outputs.closedSessions(r) >= 1 && !outputs.settled(r).isEmpty());
              });
    } catch (RuntimeException e) {
      // Reported per session below.
    }
    for (int n = 0; n < refs.size(); n++) {
      String ref = refs.get(n);
      long closed = outputs.closedSessions(ref);
      List<JsonNode> settled = outputs.settled(ref);
      if (closed != 1) {
        failures.add("pass " + pass + ": valid session " + ref + " closed " + closed + " times");
      }
      if (settled.size() != 1
          || settled
                  .get(0)
                  .path("dollars")
                  .decimalValue()
                  .compareTo(new java.math.BigDecimal(dollars(n)))
              != 0) {
        failures.add(
            "pass "
                + pass
                + ": valid session "
                + ref
                + " settled as "
                + settled
                + " (billing lost?)");
      }
    }
  }

  private static void checkLive(int pass, List<String> failures) throws IOException {
    for (int port : new int[] {stack.httpPort(), stack.topologyHealthPort()}) {
      RawHttp.Answer live =
          RawHttp.exchange(
              port,
              "GET /health/live HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
                  .getBytes(StandardCharsets.US_ASCII),
              HTTP_TIMEOUT);
      if (live.status() != 200) {
        failures.add(
            "pass "
                + pass
                + ": liveness on port "
                + port
                + " is "
                + live.status()
                + " "
                + live.body());
      }
    }
  }

  // --- plumbing ---

  private static Map<String, String> placeholders(int pass, Entry entry) {
    String tag = "c" + pass + "-" + entry.category().ordinal() + "-" + entry.index();
    return Map.of(
        "id",
        tag,
        "device",
        "corpus-" + tag,
        "ref",
        "ref-" + tag,
        "num",
        Integer.toString(pass * 1000 + entry.category().ordinal() * 100 + entry.index()),
        "now",
        Instant.now().truncatedTo(ChronoUnit.SECONDS).toString());
  }

  private static String render(String template, Map<String, String> values) {
    return HostileCorpus.render(template, values);
  }

  private static Map<Category, List<Entry>> selected(Map<Category, List<Entry>> corpus) {
    String only = System.getProperty("corpus.only");
    if (only == null || only.isBlank()) {
      return corpus;
    }
    Pattern pattern = Pattern.compile(only);
    Map<Category, List<Entry>> selected = new java.util.LinkedHashMap<>();
    corpus.forEach(
        (category, entries) ->
            selected.put(
                category,
                entries.stream().filter(e -> pattern.matcher(e.label()).find()).toList()));
    return selected;
  }

  private static void printSizes(Map<Category, List<Entry>> corpus) {
    StringBuilder table = new StringBuilder("\n| category | entries |\n| --- | ---: |\n");
    int total = 0;
    for (var category : corpus.entrySet()) {
      table
          .append("| ")
          .append(category.getKey().file)
          .append(" | ")
          .append(category.getValue().size())
          .append(" |\n");
      total += category.getValue().size();
    }
    table.append("| total | ").append(total).append(" |\n");
    System.out.println("hostile corpus size by category:" + table);
  }

  /** Heap after GC and resident set size, as the issue asks to watch them. */
  private record Memory(long heapBytes, long rssBytes) {
    static Memory measure() throws IOException {
      for (int i = 0; i < 3; i++) {
        System.gc();
      }
      long heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
      long rss = 0;
      for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
        if (line.startsWith("VmRSS:")) {
          rss = Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
        }
      }
      return new Memory(heap, rss);
    }
  }
}
