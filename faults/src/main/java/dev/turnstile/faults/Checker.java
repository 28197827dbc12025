package dev.turnstile.faults;

import com.fasterxml.jackson.databind.JsonNode;
import dev.turnstile.local.TopicReader;
import dev.turnstile.schemas.CloudEventHeaders;
import dev.turnstile.schemas.Json;
import dev.turnstile.schemas.TopicCatalogue;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;

/**
 * Reads every output topic (and both raw topics) {@code read_committed} from the beginning and
 * counts, per session reference, what the pipeline made of each input; then {@link Verdict#judge}
 * holds that against the {@link Ledger}.
 */
final class Checker {

  private static final Duration READ_TIMEOUT = Duration.ofMinutes(10);

  private final String bootstrap;
  private final Map<String, Effects> effects = new HashMap<>();
  private final Map<String, Long> rejectedByReason = new TreeMap<>();
  private final Map<String, Long> recordsByTopic = new TreeMap<>();
  private long closedDurationMillis;
  private BigDecimal settledKwh = BigDecimal.ZERO;
  private BigDecimal settledDollars = BigDecimal.ZERO;

  Checker(String bootstrap) {
    this.bootstrap = bootstrap;
  }

  /** Reads every topic; then {@link #judge} compares. */
  Checker read(Ledger ledger) {
    scan(TopicCatalogue.DEVICE_EVENTS_RAW.baseName(), this::rawDeviceEvent);
    scan(TopicCatalogue.SERVICEBUS_MESSAGES_RAW.baseName(), this::rawBilling);
    scan(TopicCatalogue.DEVICE_SESSIONS.baseName(), r -> sessionEvent(r, ledger));
    scan(TopicCatalogue.MERGE_RESULTS.baseName(), this::mergeResult);
    scan(TopicCatalogue.POST_MERGE.baseName(), r -> settled(r, ledger));
    scan(TopicCatalogue.REJECTED_EVENTS.baseName(), this::rejected);
    return this;
  }

  Verdict judge(Ledger ledger, Set<String> deadLetteredBilling) {
    return Verdict.judge(
        ledger,
        effects,
        deadLetteredBilling,
        rejectedByReason,
        recordsByTopic,
        closedDurationMillis,
        settledKwh,
        settledDollars);
  }

  private void scan(
      String topic, java.util.function.Consumer<ConsumerRecord<String, byte[]>> each) {
    long read = TopicReader.scan(bootstrap, topic, each, READ_TIMEOUT);
    recordsByTopic.put(topic, read);
  }

  private Effects of(String sessionRef) {
    return effects.computeIfAbsent(sessionRef, ref -> new Effects());
  }

  private void rawDeviceEvent(ConsumerRecord<String, byte[]> record) {
    String eventId = header(record, CloudEventHeaders.ID);
    if (eventId.endsWith("-started")) {
      of(eventId.substring(0, eventId.length() - "-started".length())).rawStarted++;
    } else if (eventId.endsWith("-finished")) {
      of(eventId.substring(0, eventId.length() - "-finished".length())).rawFinished++;
    } else {
      of("?event " + eventId).rawStarted++;
    }
  }

  private void rawBilling(ConsumerRecord<String, byte[]> record) {
    String messageId = header(record, CloudEventHeaders.ID);
    String ref =
        messageId.startsWith("billing-") ? messageId.substring(8) : "?message " + messageId;
    of(ref).rawBilling++;
  }

  private void sessionEvent(ConsumerRecord<String, byte[]> record, Ledger ledger) {
    JsonNode event = json(record);
    String ref = event.path("sessionRef").asText("?no-ref " + record.key());
    Effects e = of(ref);
    switch (event.path("type").asText()) {
      case "Opened" -> e.opened++;
      case "Closed" -> {
        e.closed++;
        long duration = event.path("durationMillis").asLong();
        closedDurationMillis += duration;
        Ledger.Session session = ledger.session(ref);
        if (session == null || session.durationMillis() != duration) {
          e.durationWrong = true;
        }
      }
      case "Expired" -> e.expired++;
      default -> e.superseded++;
    }
  }

  private void mergeResult(ConsumerRecord<String, byte[]> record) {
    of(record.key()).mergeResult(json(record).path("mergeResultId").asText());
  }

  private void settled(ConsumerRecord<String, byte[]> record, Ledger ledger) {
    JsonNode settled = json(record);
    Effects e = of(record.key());
    e.settled++;
    BigDecimal kwh = new BigDecimal(settled.path("kwhTotal").asText("0"));
    BigDecimal dollars = new BigDecimal(settled.path("dollars").asText("0"));
    settledKwh = settledKwh.add(kwh);
    settledDollars = settledDollars.add(dollars);
    Ledger.Session session = ledger.session(record.key());
    if (session == null
        || !session.billed()
        || session.durationMillis() != settled.path("durationMillis").asLong()
        || session.kwhTotal.compareTo(kwh) != 0
        || session.dollars.compareTo(dollars) != 0) {
      e.settledWrong = true;
    }
  }

  private void rejected(ConsumerRecord<String, byte[]> record) {
    JsonNode rejection = json(record);
    rejectedByReason.merge(rejection.path("reason").asText("?"), 1L, Long::sum);
    String eventId = rejection.path("eventId").asText("");
    String ref = eventId.replaceFirst("-(started|finished)$", "").replaceFirst("^billing-", "");
    of(ref.isEmpty() ? "?rejected " + record.offset() : ref).rejected++;
  }

  private static JsonNode json(ConsumerRecord<String, byte[]> record) {
    try {
      return Json.mapper().readTree(record.value());
    } catch (IOException e) {
      throw new UncheckedIOException(
          "unreadable record " + record.topic() + "-" + record.partition() + "@" + record.offset(),
          e);
    }
  }

  private static String header(ConsumerRecord<?, ?> record, String name) {
    Header header = record.headers().lastHeader(name);
    return header == null ? "" : new String(header.value(), StandardCharsets.UTF_8);
  }
}
