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
 * <p><b>Stored form.</b> CBOR (RFC 8949) through Jackson's CBOR mapper: the same members as the
 * JSON form below, but numbers in binary (a decimal keeps its scale: RFC 8949 §3.4.4 decimal
 * fractions), the digest as a byte string, and each patch's identity once, in its version. The
 * JSON form that earlier versions wrote (each patch also carrying its {@code eventId} and {@code
 * source}) is still read, so a changelog written before the change restores: a JSON value starts
 * with {@code '{'}, a CBOR map with a major-type-5 byte ({@code 0xA0}–{@code 0xBF}).
 *
 * @param base the compacted document; absent until a patch was compacted
 * @param baseVersion the last compacted patch's version; absent until then
 * @param patches retained patches
 * @param digest {@link ContributionDigest#toBytes()}
 * @param sources every contributing source
 */
record StoredMergeState(
    JsonNode base,
    MergeVersion baseVersion,
    List<StoredPatch> patches,
    byte[] digest,
    List<String> sources) {

  /**
   * A retained patch: its identity is its version's ({@link Patch#of}).
   *
   * @param version where it stands, with its source and event id
   * @param body the RFC 7396 merge patch
   */
  record StoredPatch(MergeVersion version, JsonNode body) {}

  private static final ObjectMapper CBOR =
      CBORMapper.builder()
          .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
          .configure(JsonNodeFeature.STRIP_TRAILING_BIGDECIMAL_ZEROES, false)
          .serializationInclusion(JsonInclude.Include.NON_NULL)
          .build();

  /** The stored form: CBOR written, CBOR or the earlier JSON read. */
  static final TimedStore.Codec<StoredMergeState> CODEC =
      new TimedStore.Codec<>() {
        @Override
        public byte[] write(StoredMergeState value) {
          try {
            return CBOR.writeValueAsBytes(value);
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        }

        @Override
        public StoredMergeState read(byte[] bytes) {
          ObjectMapper mapper = bytes.length > 0 && bytes[0] == '{' ? Json.mapper() : CBOR;
          try {
            return mapper.readValue(bytes, StoredMergeState.class);
          } catch (IOException e) {
            throw new IllegalStateException("a merge-store value is not a stored merge state", e);
          }
        }
      };

  static StoredMergeState of(MergeState state) {
    return new StoredMergeState(
        state.base().isMissingNode() ? null : state.base(),
        state.baseVersion().orElse(null),
        state.patches().stream().map(p -> new StoredPatch(p.version(), p.body())).toList(),
        state.digest().toBytes(),
        List.copyOf(state.sources()));
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
