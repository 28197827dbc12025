package dev.turnstile.topology.adapter.streams;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import dev.turnstile.schemas.Topic;
import dev.turnstile.schemas.TopicCatalogue;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;

/**
 * {@link OutputHeaders#cloudEvent}, which runs the SDK's writer once per kind of record, writes for
 * any record exactly the headers, in the same order, that the writer writes for that record's
 * event.
 */
class OutputHeadersProperties {

  @Property(tries = 500)
  void theHeadersAreTheWritersOwn(
      @ForAll("topics") Topic topic,
      @ForAll("types") String type,
      @ForAll("ids") String id,
      @ForAll("subjects") String subject,
      @ForAll("times") Instant time) {
    assertThat(pairs(OutputHeaders.cloudEvent(topic, id, type, subject, time)))
        .isEqualTo(pairs(OutputHeaders.written(topic, id, type, subject, time)));
  }

  @Example
  void aRecordCannotChangeTheHeadersOfTheNext() {
    Instant at = Instant.parse("2026-12-03T10:00:00Z");
    Headers first = OutputHeaders.cloudEvent(TopicCatalogue.POST_MERGE, "a", "t.v1", "s", at);
    first.lastHeader("ce_source").value()[0] = 'X';
    first.remove("ce_type");

    assertThat(pairs(OutputHeaders.cloudEvent(TopicCatalogue.POST_MERGE, "b", "t.v1", "s", at)))
        .isEqualTo(pairs(OutputHeaders.written(TopicCatalogue.POST_MERGE, "b", "t.v1", "s", at)));
  }

  @Example
  void aNullIdIsRefusedAsTheBuilderRefusesIt() {
    assertThatIllegalStateException()
        .isThrownBy(
            () ->
                OutputHeaders.written(
                    TopicCatalogue.POST_MERGE, null, "t.v1", null, Instant.EPOCH));
    assertThatIllegalStateException()
        .isThrownBy(
            () ->
                OutputHeaders.cloudEvent(
                    TopicCatalogue.POST_MERGE, null, "t.v1", null, Instant.EPOCH));
  }

  private static List<String> pairs(Headers headers) {
    return Arrays.stream(headers.toArray())
        .map((Header h) -> h.key() + "=" + Arrays.toString(h.value()))
        .toList();
  }

  @Provide
  Arbitrary<Topic> topics() {
    return Arbitraries.of(
        TopicCatalogue.DEVICE_SESSIONS,
        TopicCatalogue.MERGE_RESULTS,
        TopicCatalogue.POST_MERGE,
        TopicCatalogue.REJECTED_EVENTS);
  }

  @Provide
  Arbitrary<String> types() {
    return Arbitraries.of("dev.turnstile.a.v1", "dev.turnstile.b.v1");
  }

  @Provide
  Arbitrary<String> ids() {
    return Arbitraries.strings().withCharRange(' ', '\ud7ff').ofMinLength(1).ofMaxLength(40);
  }

  @Provide
  Arbitrary<String> subjects() {
    // Empty, and outside the BMP (a surrogate pair), too.
    return Arbitraries.strings()
        .withCharRange(' ', '\ud7ff')
        .ofMinLength(0)
        .ofMaxLength(20)
        .map(s -> s.length() % 3 == 1 ? s + "\uD83D\uDE00" : s)
        .injectNull(0.3);
  }

  @Provide
  Arbitrary<Instant> times() {
    // Whole seconds, milliseconds and odd nanoseconds, since the written fraction varies with them.
    return Arbitraries.longs()
        .between(0, 4_102_444_800L)
        .flatMap(
            s ->
                Arbitraries.of(0, 1_000_000, 120_000_000, 123_456_789)
                    .map(n -> Instant.ofEpochSecond(s, n)));
  }
}
