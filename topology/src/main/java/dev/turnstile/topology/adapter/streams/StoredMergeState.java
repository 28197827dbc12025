package dev.turnstile.topology.adapter.streams;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import dev.turnstile.topology.domain.merge.ContributionDigest;
import dev.turnstile.topology.domain.merge.MergeState;
import dev.turnstile.topology.domain.merge.MergeVersion;
import dev.turnstile.topology.domain.merge.Patch;
import java.util.List;

/**
 * A {@link MergeState} as {@code merge-store} keeps it (JSON): its parts, not the derived document,
 * which {@link MergeState#restore} recomputes.
 *
 * @param base the compacted document; absent until a patch was compacted
 * @param baseVersion the last compacted patch's version; absent until then
 * @param patches retained patches
 * @param digest {@link ContributionDigest#toBytes()}, base64 in JSON
 * @param sources every contributing source
 */
record StoredMergeState(
    JsonNode base,
    MergeVersion baseVersion,
    List<Patch> patches,
    byte[] digest,
    List<String> sources) {

  /** The stored form: JSON through the contracts' mapper. */
  static final TimedStore.Codec<StoredMergeState> CODEC =
      new TimedStore.Codec<>() {
        private final JsonSerde<StoredMergeState> json = new JsonSerde<>(StoredMergeState.class);

        @Override
        public byte[] write(StoredMergeState value) {
          return json.write(value);
        }

        @Override
        public StoredMergeState read(byte[] bytes) {
          return json.deserializer().deserialize(null, bytes);
        }
      };

  static StoredMergeState of(MergeState state) {
    return new StoredMergeState(
        state.base().isMissingNode() ? null : state.base(),
        state.baseVersion().orElse(null),
        state.patches(),
        state.digest().toBytes(),
        List.copyOf(state.sources()));
  }

  MergeState restore(String mergeKey, int maxPatches) {
    return MergeState.restore(
        mergeKey,
        maxPatches,
        base == null ? MissingNode.getInstance() : base,
        baseVersion,
        patches == null ? List.of() : patches,
        ContributionDigest.fromBytes(digest),
        sources == null ? List.of() : sources);
  }
}
