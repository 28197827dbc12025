package dev.turnstile.faults;

/**
 * One injected fault and how it went.
 *
 * @param number 1-based, in the order injected
 * @param kind what was done
 * @param target the process it was done to
 * @param startedAtMillis when it was injected, epoch ms
 * @param healMillis from injection until the canaries sent after it were settled; -1 when they were
 *     not within the harness's patience
 * @param note what was observed on the way (e.g. how long the process was stopped, whether it was
 *     fenced, whether the punctuation was caught)
 */
record Fault(
    int number, FaultKind kind, String target, long startedAtMillis, long healMillis, String note) {

  boolean healed() {
    return healMillis >= 0;
  }
}
