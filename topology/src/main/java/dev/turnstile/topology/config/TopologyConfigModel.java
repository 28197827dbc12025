package dev.turnstile.topology.config;

import com.fasterxml.jackson.core.JsonPointer;
import dev.turnstile.runtime.config.ConfigModel;
import dev.turnstile.runtime.config.Keys;
import dev.turnstile.runtime.config.PassThrough;
import dev.turnstile.runtime.config.Setting;
import dev.turnstile.runtime.config.Settings;
import dev.turnstile.schemas.Generation;
import dev.turnstile.topology.domain.merge.MergeState;
import dev.turnstile.topology.domain.session.SessionPolicy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.streams.StreamsConfig;

/**
 * Every configuration key of the topology, declared once: name, type, default, valid values,
 * meaning, secret or not. Each constant is also the handle code reads the key with ({@code
 * config.get(DEDUP_RETENTION)}); the generated configuration tables and {@code --check-config} come
 * from {@link #MODEL}. Long by nature: one declaration per key.
 */
public final class TopologyConfigModel {

  private TopologyConfigModel() {}

  /** Prefix of the Kafka Streams pass-through keys. */
  public static final String KAFKA_STREAMS_PREFIX = "kafka.streams.";

  /** Prefix of the keys given to every Kafka client of the topology. */
  public static final String KAFKA_PREFIX = "kafka.";

  private static final Keys KEYS = new Keys();
  private static final Keys.Group TOPOLOGY = KEYS.group("Topology");
  private static final SessionPolicy SESSION = SessionPolicy.DEFAULT;

  private static void jsonPointer(String text) {
    try {
      JsonPointer.compile(text);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "must be a JSON pointer such as /sessionId: " + e.getMessage());
    }
  }

  private static void hostPort(String text) {
    int colon = text.lastIndexOf(':');
    int port = -1;
    try {
      port = colon > 0 ? Integer.parseInt(text.substring(colon + 1)) : -1;
    } catch (NumberFormatException e) {
      // reported below
    }
    if (port < 1 || port > 65_535) {
      throw new IllegalArgumentException("must be host:port with a port in 1..65535");
    }
  }

  public static final Setting<String> BOOTSTRAP_SERVERS =
      TOPOLOGY.required("kafka.bootstrap.servers").doc("Kafka bootstrap servers, host:port[,...]");

  public static final Setting<String> TOPIC_PREFIX =
      TOPOLOGY.string("topic.prefix", "").doc("prefix of every topic name, e.g. `prod.`");

  public static final Setting<String> APPLICATION_ID =
      TOPOLOGY
          .string("topology.application-id", "turnstile-topology")
          .nonEmpty()
          .doc(
              "Kafka Streams `application.id`: consumer group, internal topic and transactional id"
                  + " prefix");

  public static final Setting<Generation> GENERATION =
      TOPOLOGY
          .string("topology.generation", "")
          .check(
              "empty, or lower-case letters, digits and `-`",
              name -> {
                if (!name.isEmpty()) {
                  Generation.check(name);
                }
              })
          .as(Generation::new)
          .doc(
              "the generation this process runs (docs/changing-a-rule.md). Empty: the original"
                  + " one, with the catalogue's topic names and `topology.application-id`. A name,"
                  + " e.g. `g2`: a generation of its own beside it, reading the same raw topics"
                  + " from their earliest retained offset, writing every topic the topology"
                  + " writes as `<topic.prefix>g2.<topic>` and running as application id"
                  + " `<topology.application-id>.g2`");

  public static final Setting<Path> STATE_DIR =
      TOPOLOGY
          .optional("topology.state-dir")
          .as(dir -> dir.map(Path::of).orElseGet(TopologyConfig::defaultStateDir))
          .doc(
              "RocksDB state directory (on Kubernetes the mount path of an `emptyDir`); default:"
                  + " `${user.home}/.turnstile/streams` (not under the temporary directory, which"
                  + " the OS may clear)");

  public static final Setting<Duration> DEDUP_RETENTION =
      TOPOLOGY
          .millis("topology.dedup.retention-ms", 7L * 86_400_000)
          .atLeast(60_000)
          .doc("how long event ids are remembered");

  public static final Setting<Duration> SESSION_REORDER_GRACE =
      TOPOLOGY
          .millis("topology.session.reorder-grace-ms", SESSION.reorderGrace().toMillis())
          .atLeast(0)
          .doc("how long an early `Finished` waits for its `Started`");

  public static final Setting<Duration> SESSION_MAX_DURATION =
      TOPOLOGY
          .millis("topology.session.max-duration-ms", SESSION.maxSessionDuration().toMillis())
          .atLeast(1)
          .doc("open sessions expire this long after their `Started` arrived");

  public static final Setting<Integer> SESSION_MAX_HELD_FINISHES =
      TOPOLOGY
          .integer("topology.session.max-held-finishes", SESSION.maxHeldFinishesPerDevice())
          .atLeast(0)
          .doc("early `Finished` events held per device");

  public static final Setting<Duration> SESSION_ENDED_RETENTION =
      TOPOLOGY
          .millis("topology.session.ended-retention-ms", SESSION.endedSessionRetention().toMillis())
          .atLeast(60_000)
          .doc(
              "how long ended `sessionRef`s are remembered, to reject late events for them"
                  + " (`SESSION_ALREADY_ENDED`)");

  public static final Setting<Integer> SESSION_MAX_STATE_BYTES =
      TOPOLOGY
          .integer("topology.session.max-state-bytes", 256 * 1024)
          .atLeast(1024)
          .doc(
              "bound on one device's stored session state; an event that would pass it is"
                  + " rejected (`DEVICE_STATE_FULL`)");

  public static final Setting<Duration> PUNCTUATE_INTERVAL =
      TOPOLOGY
          .millis("topology.punctuate-interval-ms", 10_000)
          .atLeast(10)
          .doc("wall-clock punctuation period (expiry, held finishes)");

  public static final Setting<Integer> MAX_DUE_PER_PUNCTUATION =
      TOPOLOGY
          .integer("topology.max-due-per-punctuation", 10_000)
          .atLeast(1)
          .doc("devices handled per punctuation");

  public static final Setting<Integer> NUM_STREAM_THREADS =
      TOPOLOGY.integer("topology.num-stream-threads", 1).atLeast(1).doc("Kafka Streams threads");

  public static final Setting<Integer> NUM_STANDBY_REPLICAS =
      TOPOLOGY
          .integer("topology.num-standby-replicas", 1)
          .atLeast(0)
          .doc("standby replicas of each store: a replaced pod's tasks move to a warm standby");

  public static final Setting<String> HTTP_HOST =
      TOPOLOGY
          .string("topology.http.host", "0.0.0.0")
          .doc("interface of the HTTP server (probes, metrics, queries)");

  public static final Setting<Integer> HTTP_PORT =
      TOPOLOGY
          .integer("topology.http.port", 8081)
          .between(0, 65_535)
          .doc(
              "`GET /health/live`, `/health/ready` (`RUNNING` and topics as declared), `/metrics`"
                  + " (Prometheus), the queries `/api/v1/devices/{deviceId}/sessions` and"
                  + " `/api/v1/merge/{mergeKey}`; 0 = any free port");

  public static final Setting<Optional<String>> QUERY_ADVERTISED_SERVER =
      TOPOLOGY
          .optional("topology.query.advertised-server")
          .check("host:port", TopologyConfigModel::hostPort)
          .doc(
              "`host:port` at which the other topology instances reach this one's HTTP server,"
                  + " given to Kafka Streams as `application.server`: a query for a key another"
                  + " instance owns is forwarded there. Default: this host's address (on"
                  + " Kubernetes the pod IP) and the port the server listens on");

  public static final Setting<Long> QUERY_STANDBY_MAX_LAG_RECORDS =
      TOPOLOGY
          .longValue("topology.query.standby-max-lag-records", -1)
          .atLeast(-1)
          .doc(
              "staleness bound of query answers from a standby replica: a standby at most this"
                  + " many records behind its changelog answers queries for its keys instead of"
                  + " forwarding them to the active task (0 = it restored every committed record;"
                  + " Kafka Streams' offset lag counts the commit marker of the last transaction"
                  + " too, which is not counted here); -1 = standbys never answer");

  public static final Setting<Duration> QUERY_FORWARD_TIMEOUT =
      TOPOLOGY
          .millis("topology.query.forward-timeout-ms", 2_000)
          .atLeast(100)
          .doc(
              "how long a query forwarded to the instance that owns its key may take; after it,"
                  + " `503` with `Retry-After`");

  public static final Setting<Duration> TOPICS_WAIT =
      TOPOLOGY
          .millis("topology.topics.wait-ms", 60_000)
          .atLeast(0)
          .doc(
              "at start-up, how long to wait for every topic to exist as declared before exiting"
                  + " with code 3");

  public static final Setting<Duration> TOPICS_CHECK_INTERVAL =
      TOPOLOGY
          .millis("topology.topics.check-interval-ms", 10_000)
          .atLeast(100)
          .doc(
              "how often the running process checks its topics (a partition-count change makes"
                  + " it unready)");

  private static final Keys.Group MERGE = KEYS.group("Merge and post-merge");

  public static final Setting<String> MERGE_KEY_PROPERTY =
      MERGE
          .string("topology.merge.servicebus.key-property", "mergeKey")
          .nonEmpty()
          .doc("application property holding a Service Bus record's merge key");

  public static final Setting<Optional<JsonPointer>> MERGE_KEY_POINTER =
      MERGE
          .optional("topology.merge.servicebus.key-pointer")
          .check("JSON pointer (RFC 6901)", TopologyConfigModel::jsonPointer)
          .as(pointer -> pointer.map(JsonPointer::compile))
          .doc("JSON pointer to the merge key in the body; wins over the property");

  public static final Setting<Optional<String>> MERGE_VERSION_PROPERTY =
      MERGE
          .optional("topology.merge.servicebus.version-property")
          .doc(
              "application property holding an explicit version (a long); else"
                  + " `ce_sbsequencenumber`, else `ce_time`");

  public static final Setting<Optional<JsonPointer>> MERGE_VERSION_POINTER =
      MERGE
          .optional("topology.merge.servicebus.version-pointer")
          .check("JSON pointer (RFC 6901)", TopologyConfigModel::jsonPointer)
          .as(pointer -> pointer.map(JsonPointer::compile))
          .doc("JSON pointer to an explicit version in the body; wins over the property");

  public static final Setting<Boolean> MERGE_SESSIONS_ENABLED =
      MERGE
          .bool("topology.merge.sessions.enabled", true)
          .doc("merge closed sessions under their `sessionRef`");

  public static final Setting<Integer> MERGE_MAX_DOCUMENT_BYTES =
      MERGE
          .integer("topology.merge.max-document-bytes", 64 * 1024)
          .atLeast(2)
          .doc("largest input body and merged document; larger is rejected (`DOCUMENT_TOO_LARGE`)");

  public static final Setting<Integer> MERGE_MAX_PATCHES =
      MERGE
          .integer("topology.merge.max-patches", MergeState.DEFAULT_MAX_PATCHES)
          .atLeast(1)
          .doc(
              "patches kept per key before the oldest is folded into the base;"
                  + " (max-patches + 1) × max-document-bytes must stay under "
                  + MergeSettings.MAX_STORED_STATE_BYTES / 1024
                  + " KiB so that one"
                  + " key's changelog record fits Kafka's 1 MiB default (checked at start-up)");

  public static final Setting<Duration> MERGE_RETENTION =
      MERGE
          .millis("topology.merge.retention-ms", 30L * 86_400_000)
          .atLeast(60_000)
          .doc(
              "how long a merge key's document is kept after its last patch (arrival time); a"
                  + " patch after that starts a new document. Bounds the merge state, which"
                  + " otherwise grows with every key ever merged");

  private static final Keys.Group ROCKSDB =
      KEYS.group(
          "RocksDB (memory: one shared block cache per JVM, memtables included; compression)");

  /** Passed to Kafka Streams as {@code turnstile.rocksdb.total.bytes}, with its value always. */
  public static final Setting<Long> ROCKSDB_TOTAL_BYTES =
      ROCKSDB
          .longValue(KAFKA_STREAMS_PREFIX + "turnstile.rocksdb.total.bytes", 128L * 1024 * 1024)
          .atLeast(1024 * 1024)
          .doc(
              "bytes of the block cache shared by every store of the JVM, memtables included;"
                  + " size the container's memory as heap + this + about 64 MiB");

  public static final Setting<Double> ROCKSDB_MEMTABLE_FRACTION =
      ROCKSDB
          .decimal(KAFKA_STREAMS_PREFIX + "turnstile.rocksdb.memtable.fraction", 0.5)
          .between(0.05, 0.9)
          .doc("share of that cache the memtables may take");

  public static final Setting<Long> ROCKSDB_WRITE_BUFFER_BYTES =
      ROCKSDB
          .longValue(
              KAFKA_STREAMS_PREFIX + "turnstile.rocksdb.write.buffer.bytes", 2L * 1024 * 1024)
          .atLeast(64 * 1024)
          .doc(
              "size of one memtable of one store (RocksDB `write_buffer_size`), within the shared"
                  + " bound; small, since some forty stores share the bound: with Kafka Streams'"
                  + " 16 MiB they flushed each other's near-empty memtables (1.2 ms of CPU per"
                  + " event, against 0.12 ms with 2 MiB, in the benchmark of 2026-12-01)");

  /**
   * Passed to Kafka Streams as {@code turnstile.rocksdb.compression}, with its value always: {@code
   * none}, {@code lz4} or {@code zstd}, RocksDB's {@code compression} of every store's files.
   */
  public static final Setting<String> ROCKSDB_COMPRESSION =
      ROCKSDB
          .string(KAFKA_STREAMS_PREFIX + "turnstile.rocksdb.compression", "lz4")
          .valid(ConfigDef.ValidString.in("none", "lz4", "zstd"))
          .doc(
              "how RocksDB compresses every store's files (Kafka Streams writes them"
                  + " uncompressed): in the benchmark `lz4` kept 0.4 of the state on disk that"
                  + " `none` did, for about 3% more CPU per event (docs/testing.md, Benchmarks);"
                  + " `zstd` (not measured) compresses more for more CPU. The block cache holds"
                  + " blocks uncompressed either way. It may be changed between restarts: files already written keep"
                  + " theirs until compacted, or until their window segment expires");

  private static final Keys.Group PRODUCER = KEYS.group("Kafka Streams' producers");

  /**
   * Passed to Kafka Streams as {@code producer.batch.size}, with its value always; {@code
   * kafka.batch.size} does not reach the producers, this key does.
   */
  public static final Setting<Integer> PRODUCER_BATCH_BYTES =
      PRODUCER
          .integer(KAFKA_STREAMS_PREFIX + "producer.batch.size", 128 * 1024)
          .atLeast(1024)
          .doc(
              "bytes of one record batch per partition (Kafka's `batch.size`, default 16 KiB);"
                  + " the topology writes several records per input event to several topics,"
                  + " and 16 KiB batches cost it 104 µs of CPU per event against 80 µs with 128"
                  + " KiB in the benchmark of 2026-12-02 (docs/testing.md, Benchmarks); each producer holds at most one open"
                  + " batch per partition within `buffer.memory` (32 MiB)");

  /**
   * The merge stage's stored state per key (a base document and {@code max-patches} patches, each
   * up to {@code max-document-bytes}) must fit a changelog record, or the task fails on every
   * replay.
   */
  private static void mergeStateFitsAChangelogRecord(Settings s, List<String> problems) {
    int patches = s.get(MERGE_MAX_PATCHES);
    int bytes = s.get(MERGE_MAX_DOCUMENT_BYTES);
    int most = MergeSettings.MAX_STORED_STATE_BYTES;
    if ((long) (patches + 1) * bytes > most) {
      problems.add(
          ("%s: × %s is too large: (%d + 1) × %d bytes could exceed %d bytes of stored state per"
                  + " merge key, more than a changelog record can hold")
              .formatted(MERGE_MAX_PATCHES, MERGE_MAX_DOCUMENT_BYTES, patches, bytes, most));
    }
  }

  private static List<PassThrough> passThroughs() {
    ConfigDef producer = ProducerConfig.configDef();
    ConfigDef consumer = ConsumerConfig.configDef();
    ConfigDef admin = AdminClientConfig.configDef();
    Map<String, List<ConfigDef>> streams = new HashMap<>();
    streams.put("", List.of(StreamsConfig.configDef(), producer, consumer, admin));
    streams.put("topic.", List.of());
    for (String nested : StreamsProperties.NESTED_CLIENTS) {
      ConfigDef client = nested.startsWith("producer") ? producer : consumer;
      streams.put(nested, List.of(nested.startsWith("admin") ? admin : client));
    }
    return List.of(
        new PassThrough(
            KAFKA_PREFIX,
            "every Kafka client of the topology (Kafka Streams' producers, consumers and admin"
                + " client, and the topic checks), e.g. security settings",
            Map.of("", List.of(producer, consumer, admin)),
            StreamsProperties.fixedClientKeys()),
        new PassThrough(
            KAFKA_STREAMS_PREFIX,
            "Kafka Streams, last word (its own keys, `producer.`/`consumer.`/`admin.`-prefixed"
                + " client keys, `topic.` for internal topics)",
            streams,
            StreamsProperties.fixedKeys()));
  }

  /** The topology's keys (declared last: it uses every declaration above). */
  public static final ConfigModel MODEL =
      new ConfigModel(
          "turnstile-topology",
          KEYS,
          passThroughs(),
          List.of(TopologyConfigModel::mergeStateFitsAChangelogRecord));
}
