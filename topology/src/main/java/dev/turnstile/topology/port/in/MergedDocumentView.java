package dev.turnstile.topology.port.in;

import com.fasterxml.jackson.databind.JsonNode;
import dev.turnstile.topology.domain.merge.MergeVersion;
import java.time.Instant;
import java.util.List;

/**
 * The current merged document of one merge key: what the key's last {@code merge-results.v1} record
 * says; JSON per {@code merged-document-view.v1.schema.json}.
 *
 * @param mergeKey the merge key
 * @param mergeResultId the deterministic id of the last merge result (its {@code ce_id})
 * @param version the highest version applied
 * @param document the RFC 7396 merge of every applied patch in version order
 * @param contributionCount how many distinct events contributed
 * @param sources every contributing source, sorted
 * @param updatedAt record time of the last applied patch
 */
public record MergedDocumentView(
    String mergeKey,
    String mergeResultId,
    MergeVersion version,
    JsonNode document,
    long contributionCount,
    List<String> sources,
    Instant updatedAt) {

  public MergedDocumentView {
    sources = List.copyOf(sources);
  }
}
