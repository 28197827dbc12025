package dev.turnstile.local;

import static dev.turnstile.topology.config.TopologyConfigModel.TOPIC_PREFIX;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.turnstile.schemas.CloudEventHeaders;
import dev.turnstile.schemas.DeviceSessionEvent;
import dev.turnstile.schemas.DeviceSessionEventType;
import dev.turnstile.schemas.Json;
import dev.turnstile.schemas.Topic;
import dev.turnstile.schemas.TopicCatalogue;
import dev.turnstile.testkit.servicebus.ServiceBusDouble;
import dev.turnstile.topology.DedupStage;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;

/**
 * {@code ./turnstile demo}: replays the EV charging data through the whole stack and reconciles
 * every output with figures computed straight from the CSV.
 */
final class Demo {

  private static final Duration OUTPUT_TIMEOUT = Duration.ofMinutes(3);

  private final PrintStream out;

  Demo(PrintStream out) {
    this.out = out;
  }

  /** Runs the demo; true when every checked figure reconciles. */
  boolean run(Path data, Path jsonFile, Replayer.Plan plan) throws Exception {
    List<ChargingSession> rows = EvChargingDataset.read(data);
    out.printf("Read %,d charging sessions from %s%n", rows.size(), data);
    long started = System.nanoTime();
    try (LocalStack stack = LocalStack.start(0, Map.of())) {
      out.printf(
          "Local stack up in %.1f s: Kafka %s, bridge http://127.0.0.1:%d%n",
          seconds(started), stack.bootstrapServers(), stack.httpPort());

      Reconciliation table = replayAndReconcile(stack, rows, plan);
      out.println();
      out.print(table.table());
      out.printf("Wall time %.1f s%n", seconds(started));
      if (jsonFile != null) {
        ObjectNode json = table.json();
        Files.writeString(
            jsonFile,
            Json.mapper().writerWithDefaultPrettyPrinter().writeValueAsString(json) + "\n");
        out.println("Figures written to " + jsonFile);
      }
      return table.reconciled();
    }
  }

  /**
   * Sends {@code rows} through the stack's bridge as {@code plan} says, plus three invalid requests
   * and two without a valid token, reads every output {@code read_committed} and checks it against
   * the CSV.
   */
  Reconciliation replayAndReconcile(
      LocalStack stack, List<ChargingSession> rows, Replayer.Plan plan) throws Exception {
    URI base = URI.create("http://127.0.0.1:" + stack.httpPort());
    long badRequestsRefused = sendBadRequests(base, stack.deviceToken());
    long unauthenticatedRefused = sendUnauthenticated(base);
    // The back office bills while the stations report: billing and sessions race to the merge.
    stack.serviceBus().loseFirstCompleteOf(Demo::loseFirstComplete);
    CompletableFuture<Long> billing =
        CompletableFuture.supplyAsync(
            () ->
                BillingPublisher.publish(
                    stack.serviceBus().connectionString(), LocalStack.BILLING_QUEUE, rows));
    Replayer.Report replay = replay(stack, rows, plan);
    long billed = billing.join();
    out.printf("Published %,d billing messages on Service Bus%n", billed);
    Reconciliation table = reconcile(stack, rows, replay);
    table.check(
        "invalid requests refused with 400/422", "invalidRequestsRefused", 3, badRequestsRefused);
    table.check(
        "requests without a valid token refused with 401",
        "unauthenticatedRefused",
        2,
        unauthenticatedRefused);
    reconcileServiceBusAndMerge(stack, rows, billed, table);
    return table;
  }

  /**
   * One billing message in twenty loses its first complete, as a lost lock would: it is in Kafka,
   * then delivered again, so the raw topic holds a duplicate the topology must drop.
   */
  static boolean loseFirstComplete(String messageId) {
    return Math.floorMod(messageId.hashCode(), 20) == 0;
  }

  private void reconcileServiceBusAndMerge(
      LocalStack stack, List<ChargingSession> rows, long billed, Reconciliation table)
      throws Exception {
    String bootstrap = stack.bootstrapServers();
    String prefix = stack.topologyConfig().get(TOPIC_PREFIX);
    ServiceBusDouble serviceBus = stack.serviceBus();
    long expectedLost =
        rows.stream().filter(r -> loseFirstComplete("billing-" + r.sessionId())).count();
    List<ConsumerRecord<String, byte[]>> settled =
        TopicReader.readUntil(
            bootstrap,
            TopicCatalogue.POST_MERGE.name(prefix),
            read -> read.size() >= rows.size(),
            OUTPUT_TIMEOUT);
    awaitUntil(() -> serviceBus.completedCount(LocalStack.BILLING_QUEUE) >= billed);
    awaitTopologyCaughtUp(stack, TopicCatalogue.SERVICEBUS_MESSAGES_RAW);
    List<ConsumerRecord<String, byte[]>> raw =
        TopicReader.readUntil(
            bootstrap,
            TopicCatalogue.SERVICEBUS_MESSAGES_RAW.name(prefix),
            read -> true,
            OUTPUT_TIMEOUT);
    Set<String> distinctRaw = new HashSet<>();
    raw.forEach(r -> distinctRaw.add(header(r, CloudEventHeaders.ID)));

    table.check("billing messages sent on Service Bus", "billingSent", rows.size(), billed);
    table.check(
        "billing messages completed",
        "billingCompleted",
        billed,
        serviceBus.completedCount(LocalStack.BILLING_QUEUE));
    table.check(
        "billing completes lost, delivered again",
        "billingRedelivered",
        expectedLost,
        serviceBus.lostCompleteCount(LocalStack.BILLING_QUEUE));
    table.check(
        "billing messages dead-lettered",
        "billingDeadLettered",
        0,
        serviceBus.deadLetters(LocalStack.BILLING_QUEUE).size());
    table.info("records in servicebus-messages.raw.v1", "serviceBusRawRecords", raw.size());
    table.check(
        "distinct billing messages in the raw topic",
        "distinctBillingEvents",
        billed,
        distinctRaw.size());
    table.check(
        "billing duplicates dropped by the topology",
        "billingDuplicatesDropped",
        raw.size() - distinctRaw.size(),
        stack.topology().duplicatesDropped(DedupStage.SERVICEBUS_MESSAGES));

    Set<String> settledKeys = new HashSet<>();
    BigDecimal kwh = BigDecimal.ZERO;
    BigDecimal dollars = BigDecimal.ZERO;
    for (ConsumerRecord<String, byte[]> record : settled) {
      JsonNode session = Json.mapper().readTree(record.value());
      settledKeys.add(session.path("mergeKey").asText());
      kwh = kwh.add(new BigDecimal(session.path("kwhTotal").asText()));
      dollars = dollars.add(new BigDecimal(session.path("dollars").asText()));
    }
    table.check(
        "settled sessions in post-merge.v1", "settledSessions", rows.size(), settled.size());
    table.check(
        "distinct settled sessions", "distinctSettledSessions", rows.size(), settledKeys.size());
    table.check(
        "sum of kWh in post-merge.v1",
        "settledKwhTotal",
        rows.stream().map(ChargingSession::kwhTotal).reduce(BigDecimal.ZERO, BigDecimal::add),
        kwh);
    table.check(
        "sum of dollars in post-merge.v1",
        "settledDollarsTotal",
        rows.stream().map(ChargingSession::dollars).reduce(BigDecimal.ZERO, BigDecimal::add),
        dollars);
  }

  private static void awaitUntil(java.util.function.BooleanSupplier condition)
      throws InterruptedException {
    long deadline = System.nanoTime() + OUTPUT_TIMEOUT.toNanos();
    while (!condition.getAsBoolean() && System.nanoTime() < deadline) {
      Thread.sleep(100);
    }
  }

  /** Sends {@code rows} through the stack's bridge as {@code plan} says. */
  Replayer.Report replay(LocalStack stack, List<ChargingSession> rows, Replayer.Plan plan)
      throws InterruptedException {
    long replayStart = System.nanoTime();
    Replayer.Report replay =
        new Replayer(URI.create("http://127.0.0.1:" + stack.httpPort()), stack.deviceToken())
            .replay(rows, plan);
    out.printf(
        "Replayed %,d requests (%,d events, %,d resent, %,d sessions reordered) in %.1f s%n",
        replay.requests(),
        replay.uniqueEvents(),
        replay.duplicatesInjected(),
        replay.sessionsReordered(),
        seconds(replayStart));
    replay.failures().forEach(f -> out.println("  failed: " + f));
    return replay;
  }

  /** Reads every output {@code read_committed} and checks it against what {@code rows} imply. */
  Reconciliation reconcile(LocalStack stack, List<ChargingSession> rows, Replayer.Report replay)
      throws Exception {
    Expected expected = Expected.from(rows);
    String bootstrap = stack.bootstrapServers();
    String prefix = stack.topologyConfig().get(TOPIC_PREFIX);
    List<ConsumerRecord<String, byte[]>> sessions =
        TopicReader.readUntil(
            bootstrap,
            TopicCatalogue.DEVICE_SESSIONS.name(prefix),
            read -> read.size() >= expected.opened() + expected.closed(),
            OUTPUT_TIMEOUT);
    awaitTopologyCaughtUp(stack, TopicCatalogue.DEVICE_EVENTS_RAW);
    List<ConsumerRecord<String, byte[]>> rejected =
        TopicReader.readUntil(
            bootstrap, TopicCatalogue.REJECTED_EVENTS.name(prefix), read -> true, OUTPUT_TIMEOUT);
    List<ConsumerRecord<String, byte[]>> raw =
        TopicReader.readUntil(
            bootstrap, TopicCatalogue.DEVICE_EVENTS_RAW.name(prefix), read -> true, OUTPUT_TIMEOUT);
    return reconcile(rows, expected, replay, sessions, rejected, raw, stack);
  }

  private Reconciliation reconcile(
      List<ChargingSession> rows,
      Expected expected,
      Replayer.Report replay,
      List<ConsumerRecord<String, byte[]>> sessionRecords,
      List<ConsumerRecord<String, byte[]>> rejected,
      List<ConsumerRecord<String, byte[]>> raw,
      LocalStack stack) {
    Map<DeviceSessionEventType, Set<String>> idsByType =
        new EnumMap<>(DeviceSessionEventType.class);
    Map<DeviceSessionEventType, Long> countByType = new EnumMap<>(DeviceSessionEventType.class);
    long durationSum = 0;
    long durationMismatches = 0;
    for (ConsumerRecord<String, byte[]> record : sessionRecords) {
      DeviceSessionEvent event = read(record.value());
      countByType.merge(event.type(), 1L, Long::sum);
      idsByType.computeIfAbsent(event.type(), t -> new HashSet<>()).add(event.sessionId());
      if (event.type() == DeviceSessionEventType.Closed) {
        durationSum += event.durationMillis();
        Long want = expected.durationByRef().get(event.sessionRef());
        if (want == null || !want.equals(event.durationMillis())) {
          durationMismatches++;
        }
      }
    }
    Set<String> distinctRaw = new HashSet<>();
    for (ConsumerRecord<String, byte[]> record : raw) {
      distinctRaw.add(
          header(record, CloudEventHeaders.SOURCE) + " " + header(record, CloudEventHeaders.ID));
    }
    long extraCopies = raw.size() - distinctRaw.size();
    long dropped = stack.topology().duplicatesDropped(DedupStage.DEVICE_EVENTS);

    Reconciliation table = new Reconciliation();
    table.info("CSV rows (charging sessions)", "csvRows", rows.size());
    table.info("HTTP requests sent", "eventsSent", replay.requests());
    table.info(
        "resends injected (same eventId)", "duplicatesInjected", replay.duplicatesInjected());
    table.info("sessions sent Finished-first", "sessionsReordered", replay.sessionsReordered());
    table.check("requests failed", "requestsFailed", 0, replay.failed());
    table.info("answered 503 or 429 (and retried)", "answeredUnavailable", replay.unavailable());
    table.info(
        "answered 200 duplicate by the bridge", "bridgeDuplicates", replay.answeredDuplicate());
    table.info("records in device-events.raw.v1", "rawRecords", raw.size());
    table.check(
        "distinct events in the raw topic",
        "distinctRawEvents",
        2L * rows.size(),
        distinctRaw.size());
    table.check("duplicates dropped by the topology", "duplicatesDropped", extraCopies, dropped);
    if (replay.unavailable() == 0) {
      table.check(
          "resends = bridge duplicates + dropped",
          "duplicatesAccountedFor",
          replay.duplicatesInjected(),
          replay.answeredDuplicate() + dropped);
    }
    table.check(
        "sessions opened",
        "sessionsOpened",
        expected.opened(),
        count(countByType, DeviceSessionEventType.Opened));
    table.check(
        "sessions closed",
        "sessionsClosed",
        expected.closed(),
        count(countByType, DeviceSessionEventType.Closed));
    table.check(
        "distinct sessions closed",
        "distinctSessionsClosed",
        expected.closed(),
        idsByType.getOrDefault(DeviceSessionEventType.Closed, Set.of()).size());
    table.check(
        "closed sessions whose duration differs from the CSV",
        "durationMismatches",
        0,
        durationMismatches);
    table.check(
        "sum of session durations (ms)",
        "durationMillisTotal",
        expected.durationMillisTotal(),
        durationSum);
    table.check(
        "sessions superseded",
        "sessionsSuperseded",
        0,
        count(countByType, DeviceSessionEventType.Superseded));
    table.check(
        "sessions expired",
        "sessionsExpired",
        0,
        count(countByType, DeviceSessionEventType.Expired));
    table.check("rejected events", "rejected", expected.rejected(), rejected.size());
    return table;
  }

  /**
   * Malformed JSON, a missing field, a timestamp without offset, with a valid token: each must be
   * refused for what it is (400 or 422).
   */
  private long sendBadRequests(URI base, String token) throws IOException, InterruptedException {
    HttpClient http = HttpClient.newHttpClient();
    String[] bodies = {
      "{\"eventId\": \"bad-1\", \"type\": ",
      "{\"eventId\": \"bad-2\", \"type\": \"Started\"}",
      "{\"eventId\": \"bad-3\", \"type\": \"Started\", \"occurredAt\": \"2015-01-01T10:00:00\"}"
    };
    long refused = 0;
    for (String body : bodies) {
      HttpResponse<String> response =
          http.send(
              HttpRequest.newBuilder(base.resolve("/api/v1/devices/demo-station/events"))
                  .header("Content-Type", "application/json")
                  .header("Authorization", "Bearer " + token)
                  .POST(HttpRequest.BodyPublishers.ofString(body))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      if (response.statusCode() == 400 || response.statusCode() == 422) {
        refused++;
      }
    }
    return refused;
  }

  /** A valid event with no token, then with a token the bridge never issued: each must be 401. */
  private long sendUnauthenticated(URI base) throws IOException, InterruptedException {
    HttpClient http = HttpClient.newHttpClient();
    String event =
        "{\"eventId\": \"unauthenticated-1\", \"type\": \"Started\","
            + " \"occurredAt\": \"2015-01-01T10:00:00Z\"}";
    long refused = 0;
    for (String authorization : new String[] {null, "Bearer 0123456789abcdef.not-a-token"}) {
      HttpRequest.Builder request =
          HttpRequest.newBuilder(base.resolve("/api/v1/devices/demo-station/events"))
              .header("Content-Type", "application/json")
              .POST(HttpRequest.BodyPublishers.ofString(event));
      if (authorization != null) {
        request.header("Authorization", authorization);
      }
      if (http.send(request.build(), HttpResponse.BodyHandlers.ofString()).statusCode() == 401) {
        refused++;
      }
    }
    return refused;
  }

  /** Waits until the topology's committed offsets reach the end of {@code input}. */
  private void awaitTopologyCaughtUp(LocalStack stack, Topic input)
      throws InterruptedException, ExecutionException {
    String topic = input.name(stack.topologyConfig().get(TOPIC_PREFIX));
    try (Admin admin =
        Admin.create(
            Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, stack.bootstrapServers()))) {
      long deadline = System.nanoTime() + OUTPUT_TIMEOUT.toNanos();
      while (System.nanoTime() < deadline) {
        Map<TopicPartition, OffsetAndMetadata> committed =
            admin
                .listConsumerGroupOffsets(stack.topologyConfig().applicationId())
                .partitionsToOffsetAndMetadata()
                .get();
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        for (int p = 0; p < input.partitions(); p++) {
          latest.put(new TopicPartition(topic, p), OffsetSpec.latest());
        }
        var ends = admin.listOffsets(latest).all().get();
        boolean caughtUp =
            ends.entrySet().stream()
                .allMatch(
                    e -> {
                      OffsetAndMetadata c = committed.get(e.getKey());
                      return e.getValue().offset() == 0
                          || (c != null && c.offset() >= e.getValue().offset());
                    });
        if (caughtUp) {
          return;
        }
        Thread.sleep(200);
      }
    }
  }

  private static long count(Map<DeviceSessionEventType, Long> counts, DeviceSessionEventType type) {
    return counts.getOrDefault(type, 0L);
  }

  private static String header(ConsumerRecord<?, ?> record, String name) {
    Header header = record.headers().lastHeader(name);
    return header == null ? "" : new String(header.value(), StandardCharsets.UTF_8);
  }

  private static DeviceSessionEvent read(byte[] value) {
    try {
      return Json.mapper().readValue(value, DeviceSessionEvent.class);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static double seconds(long since) {
    return (System.nanoTime() - since) / 1e9;
  }

  /** What the outputs must show, computed from the CSV alone. */
  record Expected(
      long opened,
      long closed,
      long rejected,
      long durationMillisTotal,
      Map<String, Long> durationByRef) {

    static Expected from(List<ChargingSession> rows) {
      long closed = 0;
      long total = 0;
      Map<String, Long> byRef = new HashMap<>();
      for (ChargingSession row : rows) {
        long millis =
            Duration.between(
                    row.created().atZone(EvChargingDataset.ZONE),
                    row.ended().atZone(EvChargingDataset.ZONE))
                .toMillis();
        if (millis >= 0) {
          closed++;
          total += millis;
          byRef.put(row.sessionId(), millis);
        }
      }
      return new Expected(rows.size(), closed, rows.size() - closed, total, byRef);
    }
  }
}
