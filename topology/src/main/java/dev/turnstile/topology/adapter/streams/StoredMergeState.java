package dev.turnstile.topology.adapter.streams;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.JsonNodeFeature;
import com.fasterxml.jackson.databind.node.MissingNode;
import com.fasterxml.jackson.dataformat.cbor.databind.CBORMapper;
import dev.turnstile.schemas.Json;
import dev.turnstile.topology.domain.merge.ContributionDigest;
import dev.turnstile.topology.domain.merge.MergeState;
import dev.turnstile.topology.domain.merge.MergeVersion;
import dev.turnstile.topology.domain.merge.Patch;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;

/**
 * A {@link MergeState} as {@code merge-store} keeps it: its parts, not the derived document, which
 * {@link MergeState#restore} recomputes.
 *
 * <p><b>Stored forms.</b> {@link Form#JSON}, through the contracts' mapper, each patch with its
 * {@code eventId} and {@code source} beside its version (the form every release reads), and {@link
 * Form#CBOR} (RFC 8949, through Jackson's CBOR mapper): the same members, numbers in binary (a
 * decimal keeps its scale: RFC 8949 §3.4.4 decimal fractions), the digest as a byte string, each
 * patch's identity once. Both are read: a JSON value starts with {@code '{'}, a CBOR map with a
 * major-type-5 byte ({@code 0xA0}–{@code 0xBF}). {@link #CODEC} writes CBOR. No instance of an
 * earlier release reads what this one writes (its CBOR reader refuses the {@code published} member),
 * and none can run beside it: this topology has another shape (post-merge has no store and no input
 * topic of its own), so it starts as a new generation (docs/design.md, "State and recovery").
 * Unknown members are ignored when read, so a later release may add one without that.
 *
 * @param base the compacted document; absent until a patch was compacted
 * @param baseVersion the last compacted patch's version; absent until then
 * @param patches retained patches
 * @param digest {@link ContributionDigest#toBytes()}
 * @param sources every contributing source
 * @param published SHA-256 of the key's last {@code post-merge.v1} output without its {@code
 *     mergeResultId} ({@link PostMerge.Publish#digest}); absent until one was published
 */
record StoredMergeState(
    JsonNode base,
    MergeVersion baseVersion,
    List<StoredPatch> patches,
    byte[] digest,
    List<String> sources,
    byte[] published) {

  /**
   * A retained patch: its identity is its version's ({@link Patch#of}).
   *
   * @param version where it stands, with its source and event id
   * @param body the RFC 7396 merge patch
   */
  record StoredPatch(MergeVersion version, JsonNode body) {}

  /**
   * A retained patch as the JSON form writes it: with its own {@code eventId} and {@code source}
   * beside its version, the shape every earlier release reads ({@link Patch}).
   */
  private record JsonPatch(String eventId, String source, MergeVersion version, JsonNode body) {}

  /**
   * The JSON form, member for member what earlier releases wrote and read, and what was published.
   */
  private record JsonForm(
      JsonNode base,
      MergeVersion baseVersion,
      List<JsonPatch> patches,
      byte[] digest,
      List<String> sources,
      byte[] published) {}

  /** The two stored forms. */
  enum Form {
    /** JSON, each patch with its identity twice: what releases with a post-merge-store wrote. */
    JSON,
    /**
     * CBOR (RFC 8949), each patch's identity once: 17% smaller; written by releases without a
     * post-merge-store. Negative big integers are in Jackson 2's encoding (off by one against RFC
     * 8949 §3.4.3, read back alike); a writer of the standard form (Jackson 3's default) needs a
     * reader of both first, since an instance that takes over a task, or restores a standby, must
     * read every value in the changelog.
     */
    CBOR
  }

  private static final ObjectMapper CBOR_MAPPER =
      CBORMapper.builder()
          .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
          .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
          .configure(JsonNodeFeature.STRIP_TRAILING_BIGDECIMAL_ZEROES, false)
          .serializationInclusion(JsonInclude.Include.NON_NULL)
          .build();

  /** The codec of {@code merge-store}: reads both forms, writes {@link Form#CBOR}. */
  static final TimedStore.Codec<StoredMergeState> CODEC = codec(Form.CBOR);

  /** A codec that reads both forms and writes {@code writes}. */
  static TimedStore.Codec<StoredMergeState> codec(Form writes) {
    return new TimedStore.Codec<>() {
      @Override
      public byte[] write(StoredMergeState value) {
        try {
          return writes == Form.CBOR
              ? CBOR_MAPPER.writeValueAsBytes(value)
              : Json.mapper().writeValueAsBytes(value.jsonForm());
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }

      @Override
      public StoredMergeState read(byte[] bytes) {
        ObjectMapper mapper = bytes.length > 0 && bytes[0] == '{' ? Json.mapper() : CBOR_MAPPER;
        try {
          return mapper.readValue(bytes, StoredMergeState.class);
        } catch (IOException e) {
          throw new IllegalStateException("a merge-store value is not a stored merge state", e);
        }
      }
    };
  }

  private JsonForm jsonForm() {
    return new JsonForm(
        base,
        baseVersion,
        patches.stream()
            .map(
                p ->
                    new JsonPatch(
                        p.version().eventId(), p.version().source(), p.version(), p.body()))
            .toList(),
        digest,
        sources,
        published);
  }

  /**
   * @param published what {@link #published} holds: the digest of the key's last published output,
   *     or {@code null}
   */
  static StoredMergeState of(MergeState state, byte[] published) {
    return new StoredMergeState(
        state.base().isMissingNode() ? null : state.base(),
        state.baseVersion().orElse(null),
        state.patches().stream().map(p -> new StoredPatch(p.version(), p.body())).toList(),
        state.digest().toBytes(),
        List.copyOf(state.sources()),
        published);
  }

  MergeState restore(String mergeKey, int maxPatches) {
    return MergeState.restore(
        mergeKey,
        maxPatches,
        base == null ? MissingNode.getInstance() : base,
        baseVersion,
        patches == null
            ? List.of()
            : patches.stream().map(p -> Patch.of(p.version(), p.body())).toList(),
        ContributionDigest.fromBytes(digest),
        sources == null ? List.of() : sources);
  }
}
