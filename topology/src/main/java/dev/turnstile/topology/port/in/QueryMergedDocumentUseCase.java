package dev.turnstile.topology.port.in;

/** Read-only: the current merged document of one merge key, from {@code merge-store}. */
public interface QueryMergedDocumentUseCase {

  /**
   * @param mergeKey the merge key, as on {@code merge-results.v1}
   * @return {@link QueryAnswer.Found} with the document the last {@code merge-results.v1} record of
   *     the key carries, {@link QueryAnswer.NotFound} when none is held (never merged, or older
   *     than {@code topology.merge.retention-ms}), {@link QueryAnswer.OwnedBy} or {@link
   *     QueryAnswer.Unavailable}
   */
  QueryAnswer<MergedDocumentView> mergedDocument(String mergeKey, QueryScope scope);
}
