package dev.turnstile.bridge.adapter.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.turnstile.schemas.Json;
import dev.turnstile.schemas.TopicCatalogue;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * What the device-access ITs share: requests to a bridge over real HTTP, and the records it wrote
 * to its raw topic, read back with a consumer of every partition.
 */
final class DeviceTraffic implements AutoCloseable {

  static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  private final Supplier<Integer> port;
  private final KafkaConsumer<String, byte[]> consumer;
  private final List<ConsumerRecord<String, byte[]>> records = new ArrayList<>();

  DeviceTraffic(String bootstrap, String topic, Supplier<Integer> port) {
    this.port = port;
    this.consumer =
        new KafkaConsumer<>(
            Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap),
            new StringDeserializer(),
            new ByteArrayDeserializer());
    List<TopicPartition> partitions =
        IntStream.range(0, TopicCatalogue.DEVICE_EVENTS_RAW.partitions())
            .mapToObj(p -> new TopicPartition(topic, p))
            .toList();
    consumer.assign(partitions);
    consumer.seekToBeginning(partitions);
  }

  static String event(String eventId) {
    return "{\"eventId\":\""
        + eventId
        + "\",\"type\":\"Started\",\"occurredAt\":\"2014-11-18T15:40:26Z\"}";
  }

  static String batch(String... eventIds) {
    return "["
        + String.join(",", List.of(eventIds).stream().map(DeviceTraffic::event).toList())
        + "]";
  }

  /**
   * POSTs {@code body} to {@code path} with the given {@code Authorization} headers (none: no
   * header).
   */
  HttpResponse<String> post(String path, String body, String... authorization) throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(uri(path))
            .timeout(Duration.ofSeconds(20))
            .header("Content-Type", "application/json")
            .POST(BodyPublishers.ofString(body));
    for (String value : authorization) {
      request.header("Authorization", value);
    }
    return HTTP.send(request.build(), BodyHandlers.ofString());
  }

  HttpResponse<String> get(String path) throws Exception {
    return HTTP.send(
        HttpRequest.newBuilder(uri(path)).timeout(Duration.ofSeconds(20)).build(),
        BodyHandlers.ofString());
  }

  URI uri(String path) {
    return URI.create("http://127.0.0.1:" + port.get() + path);
  }

  /** Checks a problem+json answer and returns its {@code type}'s slug. */
  static String problem(HttpResponse<String> response, int status) throws Exception {
    assertThat(response.statusCode()).as(response.body()).isEqualTo(status);
    assertThat(response.headers().firstValue("Content-Type")).hasValue("application/problem+json");
    var problem = Json.mapper().readTree(response.body());
    assertThat(problem.path("status").asInt()).isEqualTo(status);
    assertThat(problem.path("detail").asText()).isNotBlank();
    return problem.path("type").asText().substring("https://turnstile.dev/problems/".length());
  }

  /** A counter of {@code /metrics}: rejected device requests for {@code reason}. */
  double rejected(String reason) throws Exception {
    Matcher matcher =
        Pattern.compile(
                "turnstile_bridge_device_events_total\\{outcome=\"rejected\",reason=\""
                    + Pattern.quote(reason)
                    + "\"} ([0-9.E]+)")
            .matcher(get("/metrics").body());
    return matcher.find() ? Double.parseDouble(matcher.group(1)) : 0;
  }

  /**
   * The event ids written for a device, up to a sentinel accepted now (a device's records share one
   * partition, so whatever earlier requests wrote precedes it).
   */
  List<String> eventIdsWrittenFor(String deviceId, String sentinel, String authorization)
      throws Exception {
    await()
        .atMost(Duration.ofSeconds(20))
        .until(
            () ->
                post("/api/v1/devices/" + deviceId + "/events", event(sentinel), authorization)
                        .statusCode()
                    == 202);
    return await()
        .atMost(Duration.ofSeconds(20))
        .pollInSameThread()
        .until(
            () -> {
              consumer.poll(Duration.ofMillis(100)).forEach(records::add);
              List<String> ids =
                  records.stream()
                      .filter(r -> deviceId.equals(r.key()))
                      .map(r -> header(r, "ce_id"))
                      .toList();
              return ids.contains(sentinel) ? ids : null;
            },
            ids -> ids != null);
  }

  /** The record written for the device's event, once it is on the topic. */
  ConsumerRecord<String, byte[]> written(String deviceId, String eventId) {
    return await()
        .atMost(Duration.ofSeconds(20))
        .pollInSameThread()
        .until(
            () -> {
              consumer.poll(Duration.ofMillis(100)).forEach(records::add);
              return records.stream()
                  .filter(r -> deviceId.equals(r.key()) && eventId.equals(header(r, "ce_id")))
                  .findFirst()
                  .orElse(null);
            },
            record -> record != null);
  }

  static String header(ConsumerRecord<?, ?> record, String name) {
    Header header = record.headers().lastHeader(name);
    return header == null ? null : new String(header.value(), StandardCharsets.UTF_8);
  }

  @Override
  public void close() {
    consumer.close();
  }
}
