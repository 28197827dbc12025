package dev.turnstile.bridge.application;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class RecentlyAcceptedTest {

  private final AtomicLong now = new AtomicLong(1_000_000_000L);

  private RecentlyAccepted<String> cache(int size, Duration ttl) {
    return new RecentlyAccepted<>(size, ttl, now::get);
  }

  @Test
  void theLastSizeIdsAreRememberedAndTheOldestGoFirst() {
    RecentlyAccepted<String> cache = cache(100, Duration.ofMinutes(10));
    for (int i = 0; i < 1_000; i++) {
      cache.remember("e-" + i, "f-" + i);
      // Looked up many times: a frequency-based policy would keep these over newer ids.
      if (i < 100) {
        for (int k = 0; k < 10; k++) {
          cache.fingerprint("e-" + i);
        }
      }
    }

    assertThat(cache.size()).isEqualTo(100);
    for (int i = 900; i < 1_000; i++) {
      assertThat(cache.fingerprint("e-" + i)).isEqualTo("f-" + i);
    }
    assertThat(cache.fingerprint("e-899")).isNull();
    assertThat(cache.fingerprint("e-0")).isNull();
  }

  @Test
  void anIdIsForgottenOnceItsTimeIsUpNotBefore() {
    RecentlyAccepted<String> cache = cache(100, Duration.ofSeconds(60));
    cache.remember("e-1", "f");
    now.addAndGet(Duration.ofSeconds(60).toNanos() - 1);
    assertThat(cache.fingerprint("e-1")).isEqualTo("f");

    now.addAndGet(1);
    assertThat(cache.fingerprint("e-1")).isNull();
    assertThat(cache.size()).isZero();
  }

  @Test
  void expiredIdsAreDroppedAsNewOnesArriveSoIdleMemoryShrinks() {
    RecentlyAccepted<String> cache = cache(100, Duration.ofSeconds(60));
    for (int i = 0; i < 50; i++) {
      cache.remember("old-" + i, "f");
    }
    now.addAndGet(Duration.ofSeconds(61).toNanos());
    cache.remember("new", "f");

    assertThat(cache.size()).isEqualTo(1);
  }

  @Test
  void theFirstCopyStandsWhenASecondRacedItToKafka() {
    RecentlyAccepted<String> cache = cache(10, Duration.ofSeconds(60));
    cache.remember("e-1", "first");
    now.addAndGet(Duration.ofSeconds(30).toNanos());
    cache.remember("e-1", "second");

    assertThat(cache.fingerprint("e-1")).isEqualTo("first");
    now.addAndGet(Duration.ofSeconds(30).toNanos());
    assertThat(cache.fingerprint("e-1")).as("the race did not extend its time").isNull();
  }

  @Test
  void theHitRateAndTheStandardCacheMetersAreExposed() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    RecentlyAccepted<String> cache = cache(2, Duration.ofSeconds(60));
    cache.bindTo(registry, "duplicate-cache");
    cache.fingerprint("e-1");
    cache.remember("e-1", "f");
    cache.remember("e-2", "f");
    cache.remember("e-3", "f");
    cache.fingerprint("e-3");
    cache.fingerprint("e-2");
    cache.fingerprint("e-1");

    assertThat(gets(registry, "hit")).isEqualTo(2);
    assertThat(gets(registry, "miss")).isEqualTo(2);
    assertThat(registry.get("cache.hit.ratio").tag("cache", "duplicate-cache").gauge().value())
        .isEqualTo(0.5);
    assertThat(registry.get("cache.puts").functionCounter().count()).isEqualTo(3);
    assertThat(registry.get("cache.evictions").functionCounter().count()).isEqualTo(1);
    assertThat(registry.get("cache.size").gauge().value()).isEqualTo(2);
  }

  private static double gets(SimpleMeterRegistry registry, String result) {
    return registry.get("cache.gets").tag("result", result).functionCounter().count();
  }
}
