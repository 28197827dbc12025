package dev.turnstile.topology.adapter.streams;

import static dev.turnstile.schemas.DeviceEventType.Finished;
import static dev.turnstile.schemas.DeviceEventType.Started;
import static dev.turnstile.topology.adapter.streams.TopologyFixture.event;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.OffsetDateTime;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code kafka.streams.turnstile.rocksdb.compression} reaches every store's files: read back from
 * the {@code OPTIONS} file RocksDB writes beside each store it opens (each segment of a window
 * store is one), as the real topology opens them; so do the partitioned index and bloom filters
 * every store is given.
 */
class RocksDbCompressionTest {

  static final OffsetDateTime T0 = OffsetDateTime.parse("2014-11-18T15:40:26-05:00");

  @TempDir Path stateDir;

  @ParameterizedTest(name = "{0}")
  @CsvSource({"none, kNoCompression", "lz4, kLZ4Compression", "zstd, kZSTD"})
  void everyStoreIsOpenedWithTheConfiguredCompression(String setting, String rocksDbName) {
    Map<String, String> overrides =
        setting.equals("lz4")
            ? Map.of() // the default
            : Map.of("kafka.streams.turnstile.rocksdb.compression", setting);
    try (TopologyFixture topology = new TopologyFixture(stateDir, overrides)) {
      topology.send(event("st-1", "e1", Started, "r1", T0));
      topology.send(event("st-1", "e2", Finished, "r1", T0.plusHours(1)));
      topology.sendServiceBus("r1", "m1", 1, "r1", "{}".getBytes(StandardCharsets.UTF_8));

      Map<String, Map<String, String>> optionsByStore = optionsByStore(stateDir);
      assertThat(optionsByStore.keySet())
          .anyMatch(store -> store.startsWith(Names.MERGE_STORE + "/"))
          .anyMatch(store -> store.startsWith(Names.DEVICE_STATE_STORE + "/"))
          .anyMatch(store -> store.startsWith(Names.SERVICEBUS_MESSAGE_DEDUP_STORE + "/"));
      assertThat(optionsByStore)
          .allSatisfy(
              (store, options) -> {
                assertThat(options.get("compression")).as(store).isEqualTo(rocksDbName);
                // Partitioned index and bloom filters (BoundedMemoryRocksDbConfig), whatever the
                // compression.
                assertThat(options.get("index_type")).as(store).isEqualTo("kTwoLevelIndexSearch");
                assertThat(options.get("partition_filters")).as(store).isEqualTo("true");
                assertThat(options.get("filter_policy")).as(store).contains("bloomfilter");
              });
    }
  }

  /**
   * The options of the default column family (the store's data; Kafka Streams keeps its own offsets
   * in another, uncompressed) and of its block-based table, in each store's latest {@code OPTIONS}
   * file, by the store's directory relative to its task's.
   */
  private static Map<String, Map<String, String>> optionsByStore(Path stateDir) {
    Map<String, Map<String, String>> found = new TreeMap<>();
    try (Stream<Path> files = Files.walk(stateDir)) {
      files
          .filter(f -> f.getFileName().toString().startsWith("OPTIONS-"))
          .sorted()
          .forEach(
              f -> {
                Path store = f.getParent();
                String name = store.getParent().getFileName() + "/" + store.getFileName();
                found.put(name, defaultColumnFamilyOptions(f));
              });
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return found;
  }

  private static Map<String, String> defaultColumnFamilyOptions(Path options) {
    String text;
    try {
      text = Files.readString(options);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Map<String, String> found = new TreeMap<>();
    for (String section : text.split("\n\\[")) {
      if (section.startsWith("CFOptions \"default\"")
          || section.startsWith("TableOptions/BlockBasedTable \"default\"")) {
        for (String line : section.split("\n")) {
          int equals = line.indexOf('=');
          if (equals > 0) {
            found.put(line.substring(0, equals).strip(), line.substring(equals + 1).strip());
          }
        }
      }
    }
    return found;
  }
}
