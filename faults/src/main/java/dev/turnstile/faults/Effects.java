package dev.turnstile.faults;

/**
 * What the outputs hold for one session reference, counted by the {@link Checker}: copies in the
 * raw topics, session events by type, merge results (and their distinct ids), settled sessions,
 * rejections, and whether a value disagreed with the ledger.
 */
final class Effects {
  int rawStarted;
  int rawFinished;
  int rawBilling;
  int opened;
  int closed;
  int expired;
  int superseded;
  int mergeResults;
  int settled;
  int rejected;
  boolean durationWrong;
  boolean settledWrong;
  private long[] mergeResultIds = new long[0];

  /** Counts a merge result; ids are compared by their first 64 bits (SHA-256 hex). */
  void mergeResult(String mergeResultId) {
    mergeResults++;
    long id = prefix(mergeResultId);
    for (long seen : mergeResultIds) {
      if (seen == id) {
        return;
      }
    }
    long[] grown = java.util.Arrays.copyOf(mergeResultIds, mergeResultIds.length + 1);
    grown[mergeResultIds.length] = id;
    mergeResultIds = grown;
  }

  int distinctMergeResults() {
    return mergeResultIds.length;
  }

  private static long prefix(String hex) {
    try {
      return Long.parseUnsignedLong(hex.substring(0, Math.min(16, hex.length())), 16);
    } catch (RuntimeException e) {
      return hex.hashCode();
    }
  }
}
