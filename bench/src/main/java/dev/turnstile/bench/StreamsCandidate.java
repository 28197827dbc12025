package dev.turnstile.bench;

import dev.turnstile.schemas.TopicCatalogue;
import dev.turnstile.topology.TopologyApplication;
import dev.turnstile.topology.config.TopologyConfig;
import dev.turnstile.topology.config.TopologyConfigModel;
import java.time.Duration;
import java.util.Properties;
import java.util.Set;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.ProcessorSupplier;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;

/**
 * What a topology benchmark runs, each with Turnstile's own Kafka Streams configuration ({@link
 * TopologyApplication#streamsProperties}: exactly_once_v2, the bounded RocksDB config, the same
 * commit interval), on the same input topic; the baselines' stores uncompressed.
 */
enum StreamsCandidate {
  /** Source to sink, nothing else: the ceiling of this broker and client for this input. */
  PASS_THROUGH("pass-through"),
  /**
   * A minimal stateful exactly-once job: one RocksDB key-value store keyed by the record's {@code
   * ce_id} header, first copy forwarded. What any dedup must at least pay.
   */
  NAIVE_DEDUP("naive-dedup"),
  /** The production topology, started as {@code ./turnstile topology} starts it. */
  TURNSTILE("turnstile");

  static final String OUTPUT = "bench-output.v1";

  final String label;

  StreamsCandidate(String label) {
    this.label = label;
  }

  static StreamsCandidate of(String label) {
    for (StreamsCandidate candidate : values()) {
      if (candidate.label.equals(label)) {
        return candidate;
      }
    }
    throw new IllegalArgumentException("unknown candidate " + label);
  }

  /** A started candidate: its Kafka Streams client's state, and its close. */
  interface Running extends AutoCloseable {
    KafkaStreams.State state();

    /** Closes the client; {@link #state()} is {@code NOT_RUNNING} after a clean close. */
    @Override
    void close();
  }

  /** Starts it and returns the running client. */
  Running start(TopologyConfig config) {
    if (this == TURNSTILE) {
      TopologyApplication app = TopologyApplication.start(config);
      return new Running() {
        @Override
        public KafkaStreams.State state() {
          return app.state();
        }

        @Override
        public void close() {
          app.close();
        }
      };
    }
    Topology topology = this == PASS_THROUGH ? passThrough(config) : naiveDedup(config);
    Properties properties = TopologyApplication.streamsProperties(config);
    // The floor of a dedup is an uncompressed store, Kafka Streams' own default: compressed, its
    // 8-byte values cost it 11.8 µs per event against 8.9 (docs/testing.md, 2026-12-03).
    properties.put(
        TopologyConfigModel.ROCKSDB_COMPRESSION
            .name()
            .substring(TopologyConfigModel.KAFKA_STREAMS_PREFIX.length()),
        "none");
    KafkaStreams streams = new KafkaStreams(topology, properties);
    streams.start();
    return new Running() {
      @Override
      public KafkaStreams.State state() {
        return streams.state();
      }

      @Override
      public void close() {
        streams.close(Duration.ofSeconds(30));
      }
    };
  }

  /**
   * {@link #OUTPUT} under the configured {@code topic.prefix}, like every topic of the topology (a
   * warm-up pass writes its own).
   */
  static String output(TopologyConfig config) {
    return config.get(TopologyConfigModel.TOPIC_PREFIX) + OUTPUT;
  }

  /** Device events from the raw topic to {@link #output}, nothing else. */
  static Topology passThrough(TopologyConfig config) {
    Topology topology = new Topology();
    topology.addSource(
        "source",
        Serdes.String().deserializer(),
        Serdes.ByteArray().deserializer(),
        config.topic(TopicCatalogue.DEVICE_EVENTS_RAW));
    topology.addSink(
        "sink",
        output(config),
        Serdes.String().serializer(),
        Serdes.ByteArray().serializer(),
        "source");
    return topology;
  }

  private static Topology naiveDedup(TopologyConfig config) {
    StoreBuilder<KeyValueStore<Bytes, Long>> store =
        Stores.keyValueStoreBuilder(
            Stores.persistentKeyValueStore("naive-dedup-store"), Serdes.Bytes(), Serdes.Long());
    ProcessorSupplier<String, byte[], String, byte[]> dedup =
        new ProcessorSupplier<>() {
          @Override
          public Processor<String, byte[], String, byte[]> get() {
            return new Processor<>() {
              private ProcessorContext<String, byte[]> context;
              private KeyValueStore<Bytes, Long> seen;

              @Override
              public void init(ProcessorContext<String, byte[]> context) {
                this.context = context;
                this.seen = context.getStateStore("naive-dedup-store");
              }

              @Override
              public void process(Record<String, byte[]> record) {
                var id = record.headers().lastHeader("ce_id");
                Bytes key = Bytes.wrap(id == null ? new byte[0] : id.value());
                if (seen.get(key) == null) {
                  seen.put(key, record.timestamp());
                  context.forward(record);
                }
              }
            };
          }

          @Override
          public Set<StoreBuilder<?>> stores() {
            return Set.of(store);
          }
        };
    Topology topology = new Topology();
    topology.addSource(
        "source",
        Serdes.String().deserializer(),
        Serdes.ByteArray().deserializer(),
        config.topic(TopicCatalogue.DEVICE_EVENTS_RAW));
    topology.addProcessor("naive-dedup", dedup, "source");
    topology.addSink(
        "sink",
        output(config),
        Serdes.String().serializer(),
        Serdes.ByteArray().serializer(),
        "naive-dedup");
    return topology;
  }
}
