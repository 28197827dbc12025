package dev.turnstile.topology.adapter.streams;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.turnstile.schemas.Json;
import dev.turnstile.topology.domain.merge.MergeOutcome;
import dev.turnstile.topology.domain.merge.MergeResult;
import dev.turnstile.topology.domain.merge.MergeState;
import dev.turnstile.topology.domain.merge.MergeVersion;
import dev.turnstile.topology.domain.merge.Patch;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/**
 * Any merge state reads back from {@code merge-store} as the same state: the same document to the
 * byte (decimals keep their scale and exponent, big integers their digits), the same result id,
 * version, count and sources; and a value written in the earlier JSON form still reads.
 */
class StoredMergeStateProperties {

  private static final String KEY = "session-42";
  private static final String SESSION_BODY =
      "{\"station\":\"st-1\",\"startedAt\":\"2023-11-14T21:13:20Z\",\"endedAt\":"
          + "\"2023-11-14T22:13:20Z\",\"durationMillis\":3600000,\"sessionId\":\"ref-81\","
          + "\"deviceSessionId\":\"0b5e0c6e-7f4a-4a53-9d6c-1f0e9e3b8a11\"}";

  @Property(tries = 300)
  void anyStateReadsBackAsTheSameState(
      @ForAll("patchSets") List<Patch> patches,
      @ForAll @IntRange(min = 1, max = 4) int maxPatches,
      @ForAll StoredMergeState.Form form,
      @ForAll("digests") byte[] published)
      throws Exception {
    MergeState state = MergeState.empty(KEY, maxPatches);
    for (Patch patch : patches) {
      MergeOutcome outcome = state.apply(patch);
      state = outcome.state();
    }

    byte[] stored = StoredMergeState.codec(form).write(StoredMergeState.of(state, published));
    StoredMergeState readBack = StoredMergeState.CODEC.read(stored);
    MergeState read = readBack.restore(KEY, maxPatches);

    assertThat(readBack.published()).isEqualTo(published);
    assertSameResult(read, state);
    assertThat(read.baseVersion()).isEqualTo(state.baseVersion());
    assertThat(read.patches()).hasSameSizeAs(state.patches());
    for (int i = 0; i < state.patches().size(); i++) {
      assertThat(read.patches().get(i).version()).isEqualTo(state.patches().get(i).version());
      assertThat(text(read.patches().get(i).body())).isEqualTo(text(state.patches().get(i).body()));
    }
  }

  @Example
  void aValueInTheEarlierJsonFormStillReads() throws Exception {
    MergeState state = settled("{\"kwhTotal\":7.50,\"dollars\":1e400}");
    String digest = Base64.getEncoder().encodeToString(state.digest().toBytes());
    // As the JSON codec wrote it: each patch with its own eventId and source besides its version.
    String earlier =
        ("{\"patches\":[{\"eventId\":\"s1\",\"source\":\"/turnstile/device-sessions\",\"version\":"
                + "{\"kind\":\"EVENT_TIME\",\"value\":1700000000000,\"source\":"
                + "\"/turnstile/device-sessions\",\"eventId\":\"s1\"},\"body\":%s},{\"eventId\":\"b1\",\"source\":\"servicebus/billing\","
                + "\"version\":{\"kind\":\"SOURCE_SEQUENCE\",\"value\":17,\"source\":"
                + "\"servicebus/billing\",\"eventId\":\"b1\"},\"body\":{\"kwhTotal\":7.50,"
                + "\"dollars\":1e400}}],\"digest\":\"%s\",\"sources\":[\"/turnstile/device-sessions\","
                + "\"servicebus/billing\"]}")
            .formatted(SESSION_BODY, digest);

    MergeState read =
        StoredMergeState.CODEC.read(earlier.getBytes(StandardCharsets.UTF_8)).restore(KEY, 12);

    assertSameResult(read, state);
  }

  @Example
  void theStoreWritesTheSmallerForm() throws Exception {
    StoredMergeState stored = StoredMergeState.of(settled("{\"kwhTotal\":7.50}"), null);

    assertThat(StoredMergeState.CODEC.write(stored))
        .isEqualTo(StoredMergeState.codec(StoredMergeState.Form.CBOR).write(stored));
  }

  @Example
  void theStoredFormOfASettledSessionIsSmallerThanItsJson() throws Exception {
    MergeState state = settled("{\"userId\":\"u-1234\",\"kwhTotal\":\"6.25\",\"dollars\":1.75}");
    StoredMergeState stored = StoredMergeState.of(state, new byte[32]);

    int json = StoredMergeState.codec(StoredMergeState.Form.JSON).write(stored).length;
    int cbor = StoredMergeState.codec(StoredMergeState.Form.CBOR).write(stored).length;

    assertThat(cbor).isLessThan(json * 85 / 100);
  }

  @Example
  void bytesOfNeitherFormAreRefusedNotMisread() {
    assertThatIllegalStateException()
        .isThrownBy(() -> StoredMergeState.CODEC.read(new byte[] {'[', '1', ']'}));
    assertThatIllegalStateException()
        .isThrownBy(() -> StoredMergeState.CODEC.read(new byte[] {(byte) 0x83, 1, 2, 3}));
  }

  private static void assertSameResult(MergeState read, MergeState expected) throws Exception {
    MergeResult a = read.result().orElseThrow();
    MergeResult b = expected.result().orElseThrow();
    assertThat(text(a.document())).isEqualTo(text(b.document()));
    assertThat(a.mergeResultId()).isEqualTo(b.mergeResultId());
    assertThat(a.version()).isEqualTo(b.version());
    assertThat(a.contributionCount()).isEqualTo(b.contributionCount());
    assertThat(a.contributingEvents()).isEqualTo(b.contributingEvents());
    assertThat(a.sources()).isEqualTo(b.sources());
    assertThat(text(read.base())).isEqualTo(text(expected.base()));
  }

  /** JSON text: a decimal's scale and an integer's digits show, an int and a long node do not. */
  private static String text(JsonNode node) throws Exception {
    return Json.mapper().writeValueAsString(node);
  }

  /** A closed session merged with its billing record. */
  private static MergeState settled(String billingBody) throws Exception {
    return MergeState.empty(KEY, 12).apply(session()).state().apply(billing(billingBody)).state();
  }

  private static Patch session() throws Exception {
    return Patch.of(
        MergeVersion.eventTime(
            Instant.ofEpochMilli(1_700_000_000_000L), "/turnstile/device-sessions", "s1"),
        Json.mapper().readTree(SESSION_BODY));
  }

  private static Patch billing(String body) throws Exception {
    return Patch.of(
        MergeVersion.sequence(17, "servicebus/billing", "b1"), Json.mapper().readTree(body));
  }

  /** A published output's SHA-256, or none yet. */
  @Provide
  Arbitrary<byte[]> digests() {
    return Arbitraries.bytes().array(byte[].class).ofSize(32).injectNull(0.3);
  }

  @Provide
  Arbitrary<List<Patch>> patchSets() {
    Arbitrary<MergeVersion> versions =
        Combinators.combine(
                Arbitraries.of(MergeVersion.Kind.class),
                Arbitraries.longs(),
                Arbitraries.of("/turnstile/device-sessions", "servicebus/billing", "ß/源"),
                Arbitraries.strings().withChars("abc").ofMinLength(1).ofMaxLength(3))
            .as(MergeVersion::new);
    return Combinators.combine(versions, objects(Arbitraries.oneOf(leaves(), objects(leaves()))))
        .as(Patch::of)
        .list()
        .ofMinSize(1)
        .ofMaxSize(8)
        .uniqueElements(Patch::contribution);
  }

  /** Every kind of JSON leaf, numbers as the strict reader makes them (decimals kept exact). */
  private static Arbitrary<JsonNode> leaves() {
    JsonNodeFactory f = JsonNodeFactory.instance;
    return Arbitraries.oneOf(
        Arbitraries.longs().map(f::numberNode),
        Arbitraries.bigIntegers()
            .between(BigInteger.TEN.pow(30).negate(), BigInteger.TEN.pow(30))
            .map(f::numberNode),
        Combinators.combine(
                Arbitraries.bigIntegers()
                    .between(BigInteger.valueOf(-99999), BigInteger.TEN.pow(20)),
                Arbitraries.integers().between(-400, 400))
            .as((unscaled, scale) -> (JsonNode) f.numberNode(new BigDecimal(unscaled, scale))),
        Arbitraries.strings().withCharRange(' ', '\ud7ff').ofMaxLength(12).map(f::textNode),
        Arbitraries.of(f.booleanNode(true), f.booleanNode(false), f.nullNode()),
        Arbitraries.longs().between(0, 3).map(i -> (JsonNode) f.arrayNode().add(i).add("x")));
  }

  private static Arbitrary<JsonNode> objects(Arbitrary<JsonNode> values) {
    return Arbitraries.maps(Arbitraries.of("a", "b", "c", "kwhTotal"), values)
        .ofMaxSize(3)
        .map(
            members -> {
              ObjectNode node = JsonNodeFactory.instance.objectNode();
              members.forEach(node::set);
              return node;
            });
  }
}
