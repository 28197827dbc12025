package dev.turnstile.bridge.application;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class RecentlyAcceptedTest {

  private final AtomicLong now = new AtomicLong(1_000_000_000L);

  private RecentlyAccepted cache(int size, Duration ttl) {
    return new RecentlyAccepted(size, ttl, now::get);
  }

  @Test
  void theLastSizeIdsAreRememberedAndTheOldestGoFirst() {
    RecentlyAccepted cache = cache(100, Duration.ofMinutes(10));
    for (int i = 0; i < 1_000; i++) {
      cache.remember(id("e-" + i), content("f-" + i));
      // Looked up many times: a frequency-based policy would keep these over newer ids.
      if (i < 100) {
        for (int k = 0; k < 10; k++) {
          cache.fingerprint(id("e-" + i));
        }
      }
    }

    assertThat(cache.size()).isEqualTo(100);
    for (int i = 900; i < 1_000; i++) {
      assertThat(cache.fingerprint(id("e-" + i))).isEqualTo(content("f-" + i));
    }
    assertThat(cache.fingerprint(id("e-899"))).isNull();
    assertThat(cache.fingerprint(id("e-0"))).isNull();
  }

  @Test
  void anIdIsForgottenOnceItsTimeIsUpNotBefore() {
    RecentlyAccepted cache = cache(100, Duration.ofSeconds(60));
    cache.remember(id("e-1"), content("f"));
    now.addAndGet(Duration.ofSeconds(60).toNanos() - 1);
    assertThat(cache.fingerprint(id("e-1"))).isEqualTo(content("f"));

    now.addAndGet(1);
    assertThat(cache.fingerprint(id("e-1"))).isNull();
    assertThat(cache.size()).isZero();
  }

  @Test
  void expiredIdsAreDroppedAsNewOnesArriveSoIdleMemoryShrinks() {
    RecentlyAccepted cache = cache(100, Duration.ofSeconds(60));
    for (int i = 0; i < 50; i++) {
      cache.remember(id("old-" + i), content("f"));
    }
    now.addAndGet(Duration.ofSeconds(61).toNanos());
    cache.remember(id("new"), content("f"));

    assertThat(cache.size()).isEqualTo(1);
  }

  @Test
  void theFirstCopyStandsWhenASecondRacedItToKafka() {
    RecentlyAccepted cache = cache(10, Duration.ofSeconds(60));
    cache.remember(id("e-1"), content("first"));
    now.addAndGet(Duration.ofSeconds(30).toNanos());
    cache.remember(id("e-1"), content("second"));

    assertThat(cache.fingerprint(id("e-1"))).isEqualTo(content("first"));
    now.addAndGet(Duration.ofSeconds(30).toNanos());
    assertThat(cache.fingerprint(id("e-1"))).as("the race did not extend its time").isNull();
  }

  @Test
  void theHitRateAndTheStandardCacheMetersAreExposed() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    RecentlyAccepted cache = cache(2, Duration.ofSeconds(60));
    cache.bindTo(registry, "duplicate-cache");
    cache.fingerprint(id("e-1"));
    cache.remember(id("e-1"), content("f"));
    cache.remember(id("e-2"), content("f"));
    cache.remember(id("e-3"), content("f"));
    cache.fingerprint(id("e-3"));
    cache.fingerprint(id("e-2"));
    cache.fingerprint(id("e-1"));

    assertThat(gets(registry, "hit")).isEqualTo(2);
    assertThat(gets(registry, "miss")).isEqualTo(2);
    assertThat(registry.get("cache.hit.ratio").tag("cache", "duplicate-cache").gauge().value())
        .isEqualTo(0.5);
    assertThat(registry.get("cache.puts").functionCounter().count()).isEqualTo(3);
    assertThat(registry.get("cache.evictions").functionCounter().count()).isEqualTo(1);
    assertThat(registry.get("cache.size").gauge().value()).isEqualTo(2);
  }

  /**
   * The whole kind, against a model: random acks, lookups and clock steps over a few hundred ids,
   * small enough bounds that the ring grows, wraps, evicts by size and by time, and the index
   * deletes across its wrap-around, answer exactly what an insertion-ordered map of the same policy
   * answers.
   */
  @Test
  void everyAnswerIsTheModelsUnderRandomAcksLookupsAndTime() {
    Random random = new Random(20261203);
    for (int trial = 0; trial < 100; trial++) {
      int size = 1 + random.nextInt(trial < 20 ? 4 : 3_000);
      long ttl = 1 + random.nextInt(1_000);
      RecentlyAccepted cache = new RecentlyAccepted(size, Duration.ofNanos(ttl), now::get);
      Map<Digest128, long[]> model = new LinkedHashMap<>();
      int ids = 1 + random.nextInt(2 * size + 10);
      for (int op = 0; op < 3_000; op++) {
        Digest128 id = id("e-" + random.nextInt(ids));
        long t = now.get();
        int roll = random.nextInt(10);
        if (roll < 9) {
          // Lookups and acks drop what expired; size() alone does not.
          Iterator<long[]> eldest = model.values().iterator();
          while (eldest.hasNext() && t - eldest.next()[1] >= ttl) {
            eldest.remove();
          }
        }
        if (roll < 5) {
          Digest128 content = content("f-" + op);
          if (!model.containsKey(id)) {
            model.put(id, new long[] {op, t});
            if (model.size() > size) {
              model.remove(model.keySet().iterator().next());
            }
          }
          cache.remember(id, content);
        } else if (roll < 9) {
          long[] expected = model.get(id);
          assertThat(cache.fingerprint(id))
              .as("trial %d op %d", trial, op)
              .isEqualTo(expected == null ? null : content("f-" + expected[0]));
        } else {
          now.addAndGet(random.nextInt((int) ttl + 1));
        }
        assertThat(cache.size()).as("trial %d op %d", trial, op).isEqualTo(model.size());
      }
    }
  }

  @Test
  void forgettingEmptiesItAndItFillsAgain() {
    RecentlyAccepted cache = cache(3_000, Duration.ofSeconds(60));
    for (int i = 0; i < 2_500; i++) {
      cache.remember(id("e-" + i), content("f"));
    }
    cache.forgetAll();
    assertThat(cache.size()).isZero();
    assertThat(cache.fingerprint(id("e-1"))).isNull();
    cache.remember(id("e-1"), content("g"));
    assertThat(cache.fingerprint(id("e-1"))).isEqualTo(content("g"));
  }

  private static Digest128 id(String eventId) {
    return Digest128.ofEvent("station-1", eventId);
  }

  private static Digest128 content(String text) {
    return new Digest128.Builder().text(text).digest();
  }

  private static double gets(SimpleMeterRegistry registry, String result) {
    return registry.get("cache.gets").tag("result", result).functionCounter().count();
  }
}
