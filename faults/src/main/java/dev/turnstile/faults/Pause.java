package dev.turnstile.faults;

/** The harness's waits between polls and between the steps of a fault. */
final class Pause {

  private Pause() {}

  static void millis(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }
}
