package dev.turnstile.topology.adapter.streams;

import dev.turnstile.runtime.config.Setting;
import dev.turnstile.topology.config.TopologyConfigModel;
import java.util.Map;
import org.apache.kafka.streams.state.RocksDBConfigSetter;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.Cache;
import org.rocksdb.CompressionType;
import org.rocksdb.IndexType;
import org.rocksdb.LRUCache;
import org.rocksdb.Options;
import org.rocksdb.WriteBufferManager;

/**
 * Bounds the off-heap memory of every RocksDB instance in this JVM by one shared block cache, which
 * also accounts for the memtables through a shared {@link WriteBufferManager}, as the Kafka Streams
 * memory-management guide describes. Without it each store, and each segment of a window store,
 * takes its own cache and write buffers, and memory grows with partitions and segments.
 *
 * <p>Sizes come from the Streams configuration, as declared (with their defaults) in {@link
 * TopologyConfigModel}: {@code kafka.streams.turnstile.rocksdb.*} reach Kafka Streams without the
 * {@code kafka.streams.} prefix. The first store to be configured fixes them for the JVM: the cache
 * is shared across every Kafka Streams client in the process.
 *
 * <p>Every store's files are compressed as {@code kafka.streams.turnstile.rocksdb.compression} says
 * (LZ4 by default; Kafka Streams leaves them uncompressed), read from each store's own
 * configuration as it opens, unlike the sizes: two Kafka Streams clients in one JVM share the cache
 * but may compress differently. (Kafka Streams' own offsets column family stays uncompressed.)
 *
 * <p><b>Why small memtables.</b> A pod runs some forty RocksDB instances (seven stores per task and
 * window stores one per segment). When their memtables together pass the shared budget, the write
 * buffer manager makes whichever instance is written next flush, however little it holds: with
 * Kafka Streams' 16 MiB memtables and a 32 MiB budget this became a storm of tiny flushes and
 * compactions that cost 1.2 ms of CPU per event (measured with {@code ./mvnw -B -q -pl bench -am
 * -Pbench -DskipTests verify}, 300,000 events). With 2 MiB memtables each instance flushes when its
 * own memtable is full, the budget is rarely reached, and the topology used 0.12 ms per event in
 * the same benchmark.
 */
public final class BoundedMemoryRocksDbConfig implements RocksDBConfigSetter {

  private static Budget budget;

  private static Cache cache;
  private static WriteBufferManager writeBufferManager;

  /**
   * The sizes and the compression this setter applies, read from the configuration Kafka Streams
   * hands it (its {@code appConfigs()}: the originals, then the parsed values).
   *
   * @param totalBytes bytes of the shared block cache, memtables included
   * @param memtableFraction share of {@code totalBytes} the memtables may take
   * @param writeBufferBytes size of one memtable of one store
   * @param compression how every store's files are compressed
   */
  public record Budget(
      long totalBytes,
      double memtableFraction,
      long writeBufferBytes,
      CompressionType compression) {

    /** What {@code configs} ask for, each key's declared default where it is absent. */
    public static Budget of(Map<String, ?> configs) {
      return new Budget(
          value(configs, TopologyConfigModel.ROCKSDB_TOTAL_BYTES),
          value(configs, TopologyConfigModel.ROCKSDB_MEMTABLE_FRACTION),
          value(configs, TopologyConfigModel.ROCKSDB_WRITE_BUFFER_BYTES),
          compression(value(configs, TopologyConfigModel.ROCKSDB_COMPRESSION)));
    }

    /** RocksDB's compression of a {@link TopologyConfigModel#ROCKSDB_COMPRESSION} value. */
    static CompressionType compression(String name) {
      return switch (name) {
        case "none" -> CompressionType.NO_COMPRESSION;
        case "lz4" -> CompressionType.LZ4_COMPRESSION;
        case "zstd" -> CompressionType.ZSTD_COMPRESSION;
        default -> throw new IllegalArgumentException("not a compression: " + name);
      };
    }

    private static <T> T value(Map<String, ?> configs, Setting<T> setting) {
      String key = setting.name().substring(TopologyConfigModel.KAFKA_STREAMS_PREFIX.length());
      return setting.parse(configs.get(key));
    }
  }

  @Override
  public void setConfig(String storeName, Options options, Map<String, Object> configs) {
    ensureShared(configs);
    BlockBasedTableConfig table = (BlockBasedTableConfig) options.tableFormatConfig();
    table.setBlockCache(cache);
    table.setCacheIndexAndFilterBlocks(true);
    table.setCacheIndexAndFilterBlocksWithHighPriority(true);
    // Partitioned index and filters (RocksDB's default 4 KiB partitions): a lookup reads one
    // partition of a file's filter, and one of its index if the filter lets the key through,
    // under a top level pinned in the cache, rather than the file's whole filter and index, which
    // grow with the state and at millions of events no longer all fit in the shared cache.
    table.setIndexType(IndexType.kTwoLevelIndexSearch);
    table.setPartitionFilters(true);
    table.setPinTopLevelIndexAndFilter(true);
    options.setWriteBufferManager(writeBufferManager);
    options.setWriteBufferSize(budget.writeBufferBytes());
    // Most lookups are for keys never seen (a new event id, a session ref not ended): a bloom
    // filter over the memtable's whole keys answers those without searching it.
    options.setMemtablePrefixBloomSizeRatio(0.1);
    options.setMemtableWholeKeyFiltering(true);
    // Kafka Streams sets optimize_filters_for_hits, which leaves the last level without bloom
    // filters: right for stores whose lookups find their key, wrong for dedup, where nearly every
    // lookup is a miss and would then read an index and a data block of the largest level, a
    // cost that grows with the ids remembered.
    options.setOptimizeFiltersForHits(false);
    // Kafka Streams writes files uncompressed. The merge store's CBOR values (patch bodies with
    // their member names, sources) compress well: LZ4 kept 2.5 times less state on disk for about
    // 3% more CPU per event (docs/testing.md, Benchmarks). Blocks are cached uncompressed.
    options.setCompressionType(Budget.of(configs).compression());
    options.setTableFormatConfig(table);
  }

  private static synchronized void ensureShared(Map<String, Object> configs) {
    if (cache != null) {
      return;
    }
    budget = Budget.of(configs);
    cache = new LRUCache(budget.totalBytes(), -1, false, 0.1);
    writeBufferManager =
        new WriteBufferManager((long) (budget.totalBytes() * budget.memtableFraction()), cache);
  }

  @Override
  public void close(String storeName, Options options) {
    // The cache and the write buffer manager are shared by every store: never closed here.
  }
}
