package dev.turnstile.topology.generation;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.turnstile.runtime.config.GeneratedBlock;
import dev.turnstile.schemas.Generation;
import dev.turnstile.schemas.Json;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The diff's views cover every topic a generation writes, leave out only what they declare, and
 * docs/changing-a-rule.md shows them as declared ({@code -Dturnstile.regenerate=true} rewrites the
 * table).
 */
class OutputViewTest {

  static final Path PAGE =
      Path.of("..").toAbsolutePath().normalize().resolve("docs/changing-a-rule.md");
  static final String BLOCK = "diff views";

  @Test
  void everyTopicAGenerationWritesHasAView() {
    assertThat(OutputView.all().stream().map(OutputView::topic))
        .containsExactlyInAnyOrderElementsOf(Generation.outputs());
  }

  @Test
  void theChangingARulePageShowsTheViewsAsDeclared() throws Exception {
    List<String> generated = OutputView.markdown().lines().toList();
    if (Boolean.getBoolean("turnstile.regenerate")) {
      GeneratedBlock.write(PAGE, BLOCK, generated);
    }
    assertThat(GeneratedBlock.read(PAGE, BLOCK))
        .as(
            "docs/changing-a-rule.md's diff table drifted from OutputView; regenerate with"
                + " -Dturnstile.regenerate=true -Dtest=OutputViewTest")
        .containsExactlyElementsOf(generated);
  }

  @Test
  void aRejectionIsComparedWithoutItsProcessingTimeAndItsGenerationsNames() throws Exception {
    JsonNode fromHop =
        Json.mapper()
            .readTree(
                "{\"reason\":\"STALE_PATCH\",\"stage\":\"merge\",\"key\":\"k\",\"eventId\":\"e\","
                    + "\"sourceTopic\":\"prod.g2.merge-inputs.v1\",\"sourcePartition\":3,"
                    + "\"sourceOffset\":17,\"rejectedAt\":\"2026-12-02T10:00:00Z\"}");
    JsonNode fromRaw =
        Json.mapper()
            .readTree(
                "{\"reason\":\"FINISHED_BEFORE_STARTED\",\"stage\":\"device-session\",\"key\":\"d\","
                    + "\"eventId\":\"f\",\"sourceTopic\":\"prod.device-events.raw.v1\","
                    + "\"sourcePartition\":1,\"sourceOffset\":5,\"rejectedAt\":\"2026-12-02T10:00:00Z\"}");

    JsonNode hop = OutputView.REJECTED_EVENTS.comparable(fromHop);
    JsonNode raw = OutputView.REJECTED_EVENTS.comparable(fromRaw);

    assertThat(hop.has("rejectedAt")).isFalse();
    assertThat(hop.path("sourceTopic").asText()).isEqualTo("merge-inputs.v1");
    assertThat(hop.has("sourceOffset")).isFalse();
    assertThat(hop.path("sourcePartition").asInt()).isEqualTo(3);
    assertThat(raw.path("sourceTopic").asText()).isEqualTo("device-events.raw.v1");
    assertThat(raw.path("sourceOffset").asInt()).isEqualTo(5);
    assertThat(fromHop.has("rejectedAt")).as("the record read is left as it was").isTrue();
    assertThat(OutputView.REJECTED_EVENTS.identity("k", hop)).isEqualTo("merge k e");
  }

  @Test
  void aChangeIsNamedByItsJsonPointerAndRecordsBothSidesHaveAreSetAside() throws Exception {
    JsonNode opened = Json.mapper().readTree("{\"type\":\"Opened\",\"sessionId\":\"s\"}");
    JsonNode closed =
        Json.mapper().readTree("{\"type\":\"Closed\",\"sessionId\":\"s\",\"durationMillis\":5}");
    JsonNode expired = Json.mapper().readTree("{\"type\":\"Expired\",\"sessionId\":\"s\"}");

    List<GenerationDiff.Change> changes =
        GenerationDiff.changes(
            OutputView.DEVICE_SESSIONS, List.of(opened, closed), List.of(expired, opened));

    assertThat(changes)
        .extracting(GenerationDiff.Change::pointer)
        .containsExactlyInAnyOrder("/type", "/durationMillis");
    assertThat(changes)
        .filteredOn(c -> c.pointer().equals("/durationMillis"))
        .singleElement()
        .satisfies(c -> assertThat(c.after().isMissingNode()).isTrue());
    assertThat(
            GenerationDiff.changes(
                OutputView.DEVICE_SESSIONS, List.of(opened), List.of(opened, closed)))
        .singleElement()
        .satisfies(c -> assertThat(c.pointer()).isEmpty());
  }
}
