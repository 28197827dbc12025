package dev.turnstile.topology.config;

import static org.apache.kafka.common.config.ConfigDef.Importance.HIGH;
import static org.apache.kafka.common.config.ConfigDef.Importance.LOW;
import static org.apache.kafka.common.config.ConfigDef.Importance.MEDIUM;

import com.fasterxml.jackson.core.JsonPointer;
import dev.turnstile.runtime.config.ConfigModel;
import dev.turnstile.runtime.config.PassThrough;
import dev.turnstile.topology.adapter.streams.BoundedMemoryRocksDbConfig;
import dev.turnstile.topology.domain.merge.MergeState;
import dev.turnstile.topology.domain.session.SessionPolicy;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.streams.StreamsConfig;

/**
 * Every configuration key of the topology, declared once: type, default, valid values, meaning,
 * secret or not. The README's topology tables are generated from it. Long by nature: one
 * declaration per key, and nothing else.
 */
public final class TopologyConfigModel {

  static final String GROUP_TOPOLOGY = "Topology";
  static final String GROUP_MERGE = "Merge and post-merge";
  static final String GROUP_ROCKSDB =
      "RocksDB memory (one shared block cache per JVM, memtables included)";

  /** Prefix of the Kafka Streams pass-through keys. */
  public static final String KAFKA_STREAMS_PREFIX = "kafka.streams.";

  /** Prefix of the keys given to every Kafka client of the topology. */
  public static final String KAFKA_PREFIX = "kafka.";

  /** Client prefixes Kafka Streams itself understands inside its own configuration. */
  static final List<String> NESTED_CLIENTS =
      List.of(
          "producer.",
          "consumer.",
          "main.consumer.",
          "restore.consumer.",
          "global.consumer.",
          "admin.");

  private TopologyConfigModel() {}

  private static ConfigDef keys() {
    SessionPolicy session = SessionPolicy.DEFAULT;
    ConfigDef d = new ConfigDef();
    String g = GROUP_TOPOLOGY;
    int[] o = {0};
    def(
        d,
        g,
        o,
        "kafka.bootstrap.servers",
        Type.STRING,
        ConfigDef.NO_DEFAULT_VALUE,
        new ConfigDef.NonEmptyString(),
        HIGH,
        "Kafka bootstrap servers, host:port[,...]");
    def(
        d,
        g,
        o,
        "topic.prefix",
        Type.STRING,
        "",
        null,
        HIGH,
        "prefix of every topic name, e.g. `prod.`");
    def(
        d,
        g,
        o,
        "topology.application-id",
        Type.STRING,
        "turnstile-topology",
        new ConfigDef.NonEmptyString(),
        HIGH,
        "Kafka Streams `application.id`: consumer group, internal topic and transactional id"
            + " prefix");
    def(
        d,
        g,
        o,
        "topology.state-dir",
        Type.STRING,
        null,
        null,
        HIGH,
        "RocksDB state directory (on Kubernetes the mount path of an `emptyDir`); default:"
            + " `${user.home}/.turnstile/streams` (not under the temporary directory, which the OS"
            + " may clear)");
    def(
        d,
        g,
        o,
        "topology.dedup.retention-ms",
        Type.LONG,
        7L * 86_400_000,
        Range.atLeast(60_000),
        HIGH,
        "how long event ids are remembered");
    def(
        d,
        g,
        o,
        "topology.session.reorder-grace-ms",
        Type.LONG,
        session.reorderGrace().toMillis(),
        Range.atLeast(0),
        MEDIUM,
        "how long an early `Finished` waits for its `Started`");
    def(
        d,
        g,
        o,
        "topology.session.max-duration-ms",
        Type.LONG,
        session.maxSessionDuration().toMillis(),
        Range.atLeast(1),
        MEDIUM,
        "open sessions expire this long after their `Started` arrived");
    def(
        d,
        g,
        o,
        "topology.session.max-held-finishes",
        Type.INT,
        session.maxHeldFinishesPerDevice(),
        Range.atLeast(0),
        LOW,
        "early `Finished` events held per device");
    def(
        d,
        g,
        o,
        "topology.session.ended-retention-ms",
        Type.LONG,
        session.endedSessionRetention().toMillis(),
        Range.atLeast(60_000),
        MEDIUM,
        "how long ended `sessionRef`s are remembered, to reject late events for them"
            + " (`SESSION_ALREADY_ENDED`)");
    def(
        d,
        g,
        o,
        "topology.session.max-state-bytes",
        Type.INT,
        256 * 1024,
        Range.atLeast(1024),
        LOW,
        "bound on one device's stored session state; an event that would pass it is"
            + " rejected (`DEVICE_STATE_FULL`)");
    def(
        d,
        g,
        o,
        "topology.punctuate-interval-ms",
        Type.LONG,
        10_000L,
        Range.atLeast(10),
        LOW,
        "wall-clock punctuation period (expiry, held finishes)");
    def(
        d,
        g,
        o,
        "topology.max-due-per-punctuation",
        Type.INT,
        10_000,
        Range.atLeast(1),
        LOW,
        "devices handled per punctuation");
    def(
        d,
        g,
        o,
        "topology.num-stream-threads",
        Type.INT,
        1,
        Range.atLeast(1),
        MEDIUM,
        "Kafka Streams threads");
    def(
        d,
        g,
        o,
        "topology.num-standby-replicas",
        Type.INT,
        1,
        Range.atLeast(0),
        MEDIUM,
        "standby replicas of each store: a replaced pod's tasks move to a warm standby");
    def(
        d,
        g,
        o,
        "topology.http.host",
        Type.STRING,
        "0.0.0.0",
        null,
        LOW,
        "interface of the HTTP server (probes, metrics, queries)");
    def(
        d,
        g,
        o,
        "topology.http.port",
        Type.INT,
        8081,
        Range.between(0, 65_535),
        MEDIUM,
        "`GET /health/live`, `/health/ready` (`RUNNING` and topics as declared), `/metrics`"
            + " (Prometheus), the queries `/api/v1/devices/{deviceId}/sessions` and"
            + " `/api/v1/merge/{mergeKey}`; 0 = any free port");
    def(
        d,
        g,
        o,
        "topology.query.advertised-server",
        Type.STRING,
        null,
        HOST_PORT,
        MEDIUM,
        "`host:port` at which the other topology instances reach this one's HTTP server, given to"
            + " Kafka Streams as `application.server`: a query for a key another instance owns is"
            + " forwarded there. Default: this host's address (on Kubernetes the pod IP) and the"
            + " port the server listens on");
    def(
        d,
        g,
        o,
        "topology.query.standby-max-lag-records",
        Type.LONG,
        QuerySettings.NO_STANDBY_READS,
        Range.atLeast(-1),
        LOW,
        "staleness bound of query answers from a standby replica: a standby at most this many"
            + " records behind its changelog answers queries for its keys instead of forwarding them"
            + " to the active task (0 = it restored every committed record; Kafka Streams' offset"
            + " lag counts the commit marker of the last transaction too, which is not counted here);"
            + " -1 = standbys never answer");
    def(
        d,
        g,
        o,
        "topology.query.forward-timeout-ms",
        Type.LONG,
        2_000L,
        Range.atLeast(100),
        LOW,
        "how long a query forwarded to the instance that owns its key may take; after it, `503`"
            + " with `Retry-After`");
    def(
        d,
        g,
        o,
        "topology.topics.wait-ms",
        Type.LONG,
        60_000L,
        Range.atLeast(0),
        MEDIUM,
        "at start-up, how long to wait for every topic to exist as declared before exiting"
            + " with code 3");
    def(
        d,
        g,
        o,
        "topology.topics.check-interval-ms",
        Type.LONG,
        10_000L,
        Range.atLeast(100),
        LOW,
        "how often the running process checks its topics (a partition-count change makes"
            + " it unready)");
    g = GROUP_MERGE;
    o[0] = 0;
    def(
        d,
        g,
        o,
        "topology.merge.servicebus.key-property",
        Type.STRING,
        "mergeKey",
        new ConfigDef.NonEmptyString(),
        MEDIUM,
        "application property holding a Service Bus record's merge key");
    def(
        d,
        g,
        o,
        "topology.merge.servicebus.key-pointer",
        Type.STRING,
        null,
        JSON_POINTER,
        MEDIUM,
        "JSON pointer to the merge key in the body; wins over the property");
    def(
        d,
        g,
        o,
        "topology.merge.servicebus.version-property",
        Type.STRING,
        null,
        null,
        LOW,
        "application property holding an explicit version (a long); else"
            + " `ce_sbsequencenumber`, else `ce_time`");
    def(
        d,
        g,
        o,
        "topology.merge.servicebus.version-pointer",
        Type.STRING,
        null,
        JSON_POINTER,
        LOW,
        "JSON pointer to an explicit version in the body; wins over the property");
    def(
        d,
        g,
        o,
        "topology.merge.sessions.enabled",
        Type.BOOLEAN,
        true,
        null,
        MEDIUM,
        "merge closed sessions under their `sessionRef`");
    def(
        d,
        g,
        o,
        "topology.merge.max-document-bytes",
        Type.INT,
        64 * 1024,
        Range.atLeast(2),
        MEDIUM,
        "largest input body and merged document; larger is rejected" + " (`DOCUMENT_TOO_LARGE`)");
    def(
        d,
        g,
        o,
        "topology.merge.max-patches",
        Type.INT,
        MergeState.DEFAULT_MAX_PATCHES,
        Range.atLeast(1),
        LOW,
        "patches kept per key before the oldest is folded into the base;"
            + " (max-patches + 1) × max-document-bytes must stay under 900 KiB so that one key's"
            + " changelog record fits Kafka's 1 MiB default (checked at start-up)");
    def(
        d,
        g,
        o,
        "topology.merge.retention-ms",
        Type.LONG,
        30L * 86_400_000,
        Range.atLeast(60_000),
        MEDIUM,
        "how long a merge key's document is kept after its last patch (arrival time); a patch"
            + " after that starts a new document. Bounds the merge state, which otherwise grows"
            + " with every key ever merged");
    g = GROUP_ROCKSDB;
    o[0] = 0;
    def(
        d,
        g,
        o,
        KAFKA_STREAMS_PREFIX + BoundedMemoryRocksDbConfig.TOTAL_BYTES,
        Type.LONG,
        128L * 1024 * 1024,
        Range.atLeast(1024 * 1024),
        HIGH,
        "bytes of the block cache shared by every store of the JVM, memtables included; size"
            + " the container's memory as heap + this + about 64 MiB");
    def(
        d,
        g,
        o,
        KAFKA_STREAMS_PREFIX + BoundedMemoryRocksDbConfig.MEMTABLE_FRACTION,
        Type.DOUBLE,
        0.5,
        Range.between(0.05, 0.9),
        LOW,
        "share of that cache the memtables may take");
    def(
        d,
        g,
        o,
        KAFKA_STREAMS_PREFIX + BoundedMemoryRocksDbConfig.WRITE_BUFFER_BYTES,
        Type.LONG,
        2L * 1024 * 1024,
        Range.atLeast(64 * 1024),
        LOW,
        "size of one memtable of one store (RocksDB `write_buffer_size`), within the shared"
            + " bound; small, since some forty stores share the bound: with Kafka Streams' 16 MiB"
            + " they flushed each other's near-empty memtables (1.2 ms of CPU per event, against"
            + " 0.12 ms with 2 MiB)");
    return d;
  }

  @SuppressWarnings("checkstyle:ParameterNumber")
  private static void def(
      ConfigDef d,
      String group,
      int[] order,
      String name,
      Type type,
      Object defaultValue,
      ConfigDef.Validator validator,
      ConfigDef.Importance importance,
      String doc) {
    d.define(
        name,
        type,
        defaultValue,
        validator,
        importance,
        doc,
        group,
        ++order[0],
        ConfigDef.Width.MEDIUM,
        name);
  }

  /** Keys the topology sets itself: exactly-once and the store layout depend on them. */
  static Map<String, String> fixedStreams() {
    Map<String, String> fixed = new HashMap<>();
    fixed.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, "fixed at exactly_once_v2");
    fixed.put(StreamsConfig.APPLICATION_ID_CONFIG, "set topology.application-id");
    fixed.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "set kafka.bootstrap.servers");
    fixed.put(StreamsConfig.STATE_DIR_CONFIG, "set topology.state-dir");
    fixed.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, "set topology.num-stream-threads");
    fixed.put(StreamsConfig.NUM_STANDBY_REPLICAS_CONFIG, "set topology.num-standby-replicas");
    fixed.put(StreamsConfig.APPLICATION_SERVER_CONFIG, "set topology.query.advertised-server");
    fixed.put(
        StreamsConfig.GROUP_PROTOCOL_CONFIG,
        "fixed at classic: the streams protocol lacks warm-ups and the HA assignor");
    fixed.put(
        StreamsConfig.ENSURE_EXPLICIT_INTERNAL_RESOURCE_NAMING_CONFIG,
        "fixed at true: generated names would move state between releases");
    fixed.put(
        StreamsConfig.ROCKSDB_CONFIG_SETTER_CLASS_CONFIG,
        "fixed: it bounds RocksDB memory; see kafka.streams.turnstile.rocksdb.*");
    String noSenderStopsAThread =
        "fixed: nothing a sender controls may stop a stream thread (rejected-events.v1 instead)";
    fixed.put(StreamsConfig.PROCESSING_EXCEPTION_HANDLER_CLASS_CONFIG, noSenderStopsAThread);
    fixed.put(StreamsConfig.PRODUCTION_EXCEPTION_HANDLER_CLASS_CONFIG, noSenderStopsAThread);
    fixed.put(StreamsConfig.DESERIALIZATION_EXCEPTION_HANDLER_CLASS_CONFIG, noSenderStopsAThread);
    fixed.put(StreamsConfig.DEFAULT_TIMESTAMP_EXTRACTOR_CLASS_CONFIG, noSenderStopsAThread);
    fixed.putAll(clientFixed(""));
    for (String nested : NESTED_CLIENTS) {
      fixed.putAll(clientFixed(nested));
    }
    return fixed;
  }

  /**
   * Client keys that would weaken exactly-once: {@code isolation.level} for a consumer, {@code
   * acks}, {@code enable.idempotence} and {@code transactional.id} for a producer, under the prefix
   * that addresses that client ({@code ""} for all clients).
   */
  static Map<String, String> clientFixed(String nested) {
    Map<String, String> fixed = new HashMap<>();
    if (nested.isEmpty() || nested.endsWith("consumer.")) {
      fixed.put(
          nested + ConsumerConfig.ISOLATION_LEVEL_CONFIG,
          "fixed at read_committed by exactly_once_v2");
    }
    if (nested.isEmpty() || nested.equals("producer.")) {
      fixed.put(
          nested + ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "fixed at true by exactly_once_v2");
      fixed.put(nested + ProducerConfig.ACKS_CONFIG, "fixed at all by exactly_once_v2");
      fixed.put(
          nested + ProducerConfig.TRANSACTIONAL_ID_CONFIG,
          "set by Kafka Streams from topology.application-id");
    }
    return fixed;
  }

  private static Function<String, ConfigDef.ConfigKey> streamsKey() {
    ConfigDef producer = ProducerConfig.configDef();
    ConfigDef consumer = ConsumerConfig.configDef();
    ConfigDef admin = AdminClientConfig.configDef();
    Function<String, ConfigDef.ConfigKey> top =
        PassThrough.anyOf(StreamsConfig.configDef(), producer, consumer, admin);
    ConfigDef.ConfigKey topicConfig =
        new ConfigDef().define("topic", Type.STRING, null, LOW, "").configKeys().get("topic");
    return key -> {
      if (key.startsWith("topic.")) {
        return topicConfig;
      }
      for (String nested : NESTED_CLIENTS) {
        if (key.startsWith(nested)) {
          String rest = key.substring(nested.length());
          return nested.equals("producer.")
              ? producer.configKeys().get(rest)
              : nested.equals("admin.")
                  ? admin.configKeys().get(rest)
                  : consumer.configKeys().get(rest);
        }
      }
      return top.apply(key);
    };
  }

  private static Set<String> streamsKnown() {
    Set<String> known =
        new TreeSet<>(
            PassThrough.names(
                StreamsConfig.configDef(),
                ProducerConfig.configDef(),
                ConsumerConfig.configDef(),
                AdminClientConfig.configDef()));
    known.addAll(PassThrough.names(List.of("producer."), ProducerConfig.configDef()));
    known.addAll(
        PassThrough.names(
            List.of("consumer.", "main.consumer.", "restore.consumer.", "global.consumer."),
            ConsumerConfig.configDef()));
    known.addAll(PassThrough.names(List.of("admin."), AdminClientConfig.configDef()));
    known.add(BoundedMemoryRocksDbConfig.TOTAL_BYTES);
    known.add(BoundedMemoryRocksDbConfig.MEMTABLE_FRACTION);
    known.add(BoundedMemoryRocksDbConfig.WRITE_BUFFER_BYTES);
    return known;
  }

  private static List<PassThrough> passThroughs() {
    ConfigDef producer = ProducerConfig.configDef();
    ConfigDef consumer = ConsumerConfig.configDef();
    ConfigDef admin = AdminClientConfig.configDef();
    return List.of(
        new PassThrough(
            KAFKA_PREFIX,
            "every Kafka client of the topology (Kafka Streams' producers, consumers and admin"
                + " client, and the topic checks), e.g. security settings",
            PassThrough.anyOf(producer, consumer, admin),
            PassThrough.names(producer, consumer, admin),
            clientFixed("")),
        new PassThrough(
            KAFKA_STREAMS_PREFIX,
            "Kafka Streams, last word (its own keys, `producer.`/`consumer.`/`admin.`-prefixed"
                + " client keys, `topic.` for internal topics)",
            streamsKey(),
            streamsKnown(),
            fixedStreams()));
  }

  private static final ConfigDef.Validator JSON_POINTER =
      new ConfigDef.Validator() {
        @Override
        public void ensureValid(String name, Object value) {
          if (value == null || ((String) value).isBlank()) {
            return;
          }
          try {
            JsonPointer.compile(((String) value).trim());
          } catch (IllegalArgumentException e) {
            throw new ConfigException(
                name, value, "must be a JSON pointer such as /sessionId: " + e.getMessage());
          }
        }

        @Override
        public String toString() {
          return "JSON pointer (RFC 6901)";
        }
      };

  private static final ConfigDef.Validator HOST_PORT =
      new ConfigDef.Validator() {
        @Override
        public void ensureValid(String name, Object value) {
          if (value == null || ((String) value).isBlank()) {
            return;
          }
          String text = ((String) value).trim();
          int colon = text.lastIndexOf(':');
          int port = -1;
          try {
            port = colon > 0 ? Integer.parseInt(text.substring(colon + 1)) : -1;
          } catch (NumberFormatException e) {
            // reported below
          }
          if (port < 1 || port > 65_535) {
            throw new ConfigException(name, value, "must be host:port with a port in 1..65535");
          }
        }

        @Override
        public String toString() {
          return "host:port";
        }
      };

  /** The topology's keys (declared last: it uses the validators above). */
  public static final ConfigModel MODEL =
      new ConfigModel("turnstile-topology", keys(), List.of(), passThroughs());
}
