package dev.turnstile.faults;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.utils.Utils;

/**
 * After each fault, six charging sessions sent through the whole pipeline, one per partition of
 * every keyed topic on the way (a device per partition of {@code device-events.raw.v1}, a session
 * reference per partition of {@code servicebus-messages.raw.v1} and {@code merge-inputs.v1}): the
 * fault has healed once all six are settled on {@code post-merge.v1}, every task of both topology
 * instances having done its part. They are ordinary sessions of the run, checked like the others.
 */
final class Canary {

  /** Partitions of the catalogue's keyed topics (all six-partition). */
  static final int PARTITIONS = 6;

  private final Load load;
  private final OutputWatcher settled;
  private final String[] devices = new String[PARTITIONS];

  Canary(Load load, OutputWatcher settled) {
    this.load = load;
    this.settled = settled;
    for (int p = 0; p < PARTITIONS; p++) {
      devices[p] = keyFor("canary-", p);
    }
  }

  /** True for the session references the canaries use, e.g. {@code c12-3}. */
  static boolean isCanary(String sessionRef) {
    return sessionRef.startsWith("c") && sessionRef.indexOf('-') > 1;
  }

  /** Sends fault {@code fault}'s six sessions; returns their references. */
  List<String> send(int fault) {
    List<String> refs = new ArrayList<>();
    long now = System.currentTimeMillis();
    for (int p = 0; p < PARTITIONS; p++) {
      String ref = keyFor("c" + fault + "-", p);
      refs.add(ref);
      Ledger.Session session =
          new Ledger.Session(
              Ledger.Origin.CANARY,
              devices[p],
              ref,
              now - 600_000,
              now - 60_000,
              new BigDecimal("1.00"),
              new BigDecimal("0.25"),
              -1);
      CompletableFuture<Void> ignored = load.sendNow(session);
    }
    return refs;
  }

  /**
   * Waits until every one of {@code refs} is settled, at most {@code timeout}; returns the time the
   * last one was first read (epoch ms), or -1 when they did not all arrive in time.
   */
  long awaitSettled(List<String> refs, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      long last = 0;
      boolean all = true;
      for (String ref : refs) {
        Long seen = settled.firstSeen(ref);
        if (seen == null) {
          all = false;
          break;
        }
        last = Math.max(last, seen);
      }
      if (all) {
        return last;
      }
      Pause.millis(100);
    }
    return -1;
  }

  /**
   * The first of {@code prefix0}, {@code prefix1}, ... that Kafka's partitioner puts on {@code p}.
   */
  static String keyFor(String prefix, int partition) {
    for (int i = 0; ; i++) {
      String key = prefix + i;
      byte[] bytes = key.getBytes(StandardCharsets.UTF_8);
      if (Utils.toPositive(Utils.murmur2(bytes)) % PARTITIONS == partition) {
        return key;
      }
    }
  }
}
