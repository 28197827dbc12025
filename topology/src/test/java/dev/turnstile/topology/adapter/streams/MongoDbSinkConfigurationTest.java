package dev.turnstile.topology.adapter.streams;

import static dev.turnstile.schemas.DeviceEventType.Finished;
import static dev.turnstile.schemas.DeviceEventType.Started;
import static dev.turnstile.topology.adapter.streams.TopologyFixture.event;
import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.model.ReplaceOneModel;
import com.mongodb.client.model.WriteModel;
import com.mongodb.kafka.connect.sink.MongoSinkConfig;
import com.mongodb.kafka.connect.sink.MongoSinkTopicConfig;
import com.mongodb.kafka.connect.sink.converter.SinkConverter;
import com.mongodb.kafka.connect.sink.converter.SinkDocument;
import com.mongodb.kafka.connect.sink.processor.PostProcessors;
import dev.turnstile.schemas.TopicCatalogue;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.json.JsonConverter;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.streams.test.TestRecord;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The MongoDB sink configuration of {@code docs/mongodb.md} ({@code
 * config/connect/mongodb-sink.properties}) as the connector itself reads it: its own configuration
 * class parses the file, and real {@code post-merge.v1} and {@code merge-results.v1} records from
 * the production topology go through its converter, post-processors and write-model strategy, the
 * path a sink task takes before it calls MongoDB. MongoDB itself is not run here (no server on
 * these machines); what reaches it is a list of {@link WriteModel}s, checked below.
 */
class MongoDbSinkConfigurationTest {

  static final Path FILE =
      Path.of("..").toAbsolutePath().normalize().resolve("config/connect/mongodb-sink.properties");
  static final OffsetDateTime T0 = OffsetDateTime.parse("2026-01-05T08:00:00Z");

  @TempDir Path stateDir;

  @Test
  void everyOutputRecordBecomesAnUpsertByMergeKeyInItsCollection() throws IOException {
    MongoSinkConfig sink = new MongoSinkConfig(properties());
    List<TestRecord<String, byte[]>> records = outputs();
    assertThat(records).extracting(TestRecord::key).contains("ref-1", "ref-2");

    for (TestRecord<String, byte[]> record : records) {
      String topic = topicOf(record);
      SinkRecord sinkRecord = sinkRecord(topic, record);
      MongoSinkTopicConfig topicConfig = sink.getMongoSinkTopicConfig(topic);
      SinkDocument document = process(topicConfig, sinkRecord);

      assertThat(topicConfig.getNamespaceMapper().getNamespace(sinkRecord, document).getFullName())
          .isEqualTo(
              topic.equals(TopicCatalogue.POST_MERGE.baseName())
                  ? "turnstile.settled_sessions"
                  : "turnstile.merged_documents");
      WriteModel<BsonDocument> model =
          topicConfig.getWriteModelStrategy().createWriteModel(document);
      assertThat(model).isInstanceOf(ReplaceOneModel.class);
      ReplaceOneModel<BsonDocument> replace = (ReplaceOneModel<BsonDocument>) model;
      assertThat(replace.getReplaceOptions().isUpsert()).isTrue();
      assertThat(replace.getFilter().toBsonDocument())
          .isEqualTo(new BsonDocument("mergeKey", new BsonString(record.key())));
      assertThat(replace.getReplacement().getString("mergeResultId").getValue())
          .isEqualTo(document.getValueDoc().orElseThrow().getString("mergeResultId").getValue());
    }
  }

  @Test
  void aReplayOrARedeliveryEndsWithTheLatestRecordOfEveryKey() throws IOException {
    MongoSinkConfig sink = new MongoSinkConfig(properties());
    List<TestRecord<String, byte[]>> records = outputs();

    Map<String, BsonDocument> once = apply(sink, records, new LinkedHashMap<>());
    // At least once: the whole stream again (a replay from offset 0, or a redelivered batch).
    Map<String, BsonDocument> twice =
        apply(sink, records, apply(sink, records, new LinkedHashMap<>()));

    assertThat(twice).isEqualTo(once);
    Map<String, String> latestResultIdByCollectionAndKey = new LinkedHashMap<>();
    for (TestRecord<String, byte[]> record : records) {
      latestResultIdByCollectionAndKey.put(
          topicOf(record) + "/" + record.key(),
          sinkRecordValue(topicOf(record), record).getString("mergeResultId").getValue());
    }
    assertThat(once).hasSameSizeAs(latestResultIdByCollectionAndKey);
    once.forEach(
        (collectionAndKey, document) ->
            assertThat(document.getString("mergeResultId").getValue())
                .as(collectionAndKey)
                .isEqualTo(latestResultIdByCollectionAndKey.get(collectionAndKey)));
  }

  /**
   * What MongoDB does with a replace-one upsert, per collection and filter: the replacement becomes
   * the document. Enough to show the order of records decides the end state and repeats do not.
   */
  private static Map<String, BsonDocument> apply(
      MongoSinkConfig sink,
      List<TestRecord<String, byte[]>> records,
      Map<String, BsonDocument> db) {
    for (TestRecord<String, byte[]> record : records) {
      String topic = topicOf(record);
      MongoSinkTopicConfig topicConfig = sink.getMongoSinkTopicConfig(topic);
      SinkDocument document = process(topicConfig, sinkRecord(topic, record));
      ReplaceOneModel<BsonDocument> replace =
          (ReplaceOneModel<BsonDocument>)
              topicConfig.getWriteModelStrategy().createWriteModel(document);
      db.put(
          topic + "/" + replace.getFilter().toBsonDocument().getString("mergeKey").getValue(),
          replace.getReplacement());
    }
    return db;
  }

  private static SinkDocument process(MongoSinkTopicConfig topicConfig, SinkRecord sinkRecord) {
    SinkDocument document = new SinkConverter().convert(sinkRecord);
    new PostProcessors(
            topicConfig, topicConfig.getList(MongoSinkTopicConfig.POST_PROCESSOR_CHAIN_CONFIG))
        .getPostProcessorList()
        .forEach(processor -> processor.process(document, sinkRecord));
    return document;
  }

  /** Two sessions settled, the first corrected by a second billing message. */
  private List<TestRecord<String, byte[]>> outputs() {
    try (TopologyFixture topology = new TopologyFixture(stateDir.resolve("state"))) {
      for (String ref : List.of("ref-1", "ref-2")) {
        topology.send(event("st-" + ref, ref + "-s", Started, ref, T0));
        topology.send(event("st-" + ref, ref + "-f", Finished, ref, T0.plusHours(2)));
      }
      billing(
          topology,
          "ref-1",
          "m1",
          1,
          "{\"sessionId\":\"ref-1\",\"userId\":\"u1\",\"kwhTotal\":7.78,\"dollars\":0}");
      billing(
          topology,
          "ref-2",
          "m2",
          2,
          "{\"sessionId\":\"ref-2\",\"userId\":\"u2\",\"kwhTotal\":3.5,\"dollars\":1}");
      billing(topology, "ref-1", "m3", 3, "{\"dollars\":1.56}");
      List<TestRecord<String, byte[]>> records = new ArrayList<>();
      records.addAll(
          tagged(
              topology.mergeResults.readRecordsToList(), TopicCatalogue.MERGE_RESULTS.baseName()));
      records.addAll(
          tagged(topology.postMerge.readRecordsToList(), TopicCatalogue.POST_MERGE.baseName()));
      assertThat(topology.rejections()).isEmpty();
      assertThat(records)
          .filteredOn(r -> topicOf(r).equals(TopicCatalogue.POST_MERGE.baseName()))
          .hasSize(3);
      return records;
    }
  }

  private static void billing(
      TopologyFixture topology, String ref, String messageId, long seq, String body) {
    topology.sendServiceBus(ref, messageId, seq, ref, body.getBytes(StandardCharsets.UTF_8));
  }

  /** The fixture's records do not carry their topic: keep it in a header of our own. */
  private static List<TestRecord<String, byte[]>> tagged(
      List<TestRecord<String, byte[]>> records, String topic) {
    records.forEach(r -> r.headers().add("test-topic", topic.getBytes(StandardCharsets.UTF_8)));
    return records;
  }

  private static String topicOf(TestRecord<String, byte[]> record) {
    return new String(record.headers().lastHeader("test-topic").value(), StandardCharsets.UTF_8);
  }

  private static SinkRecord sinkRecord(String topic, TestRecord<String, byte[]> record) {
    JsonConverter values = new JsonConverter();
    values.configure(Map.of("schemas.enable", "false"), false);
    Object value = values.toConnectData(topic, record.value()).value();
    return new SinkRecord(topic, 0, Schema.STRING_SCHEMA, record.key(), null, value, 0L);
  }

  private static BsonDocument sinkRecordValue(String topic, TestRecord<String, byte[]> record) {
    return new SinkConverter().convert(sinkRecord(topic, record)).getValueDoc().orElseThrow();
  }

  private static Map<String, String> properties() throws IOException {
    Properties properties = new Properties();
    try (Reader reader = Files.newBufferedReader(FILE, StandardCharsets.UTF_8)) {
      properties.load(reader);
    }
    Map<String, String> map = new LinkedHashMap<>();
    properties.stringPropertyNames().forEach(name -> map.put(name, properties.getProperty(name)));
    return map;
  }
}
