package dev.turnstile.bridge.application;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class DeviceRateLimitsTest {

  @Test
  void aDeviceGetsItsBurstThenWaitsForTheRate() {
    DeviceRateLimits limits = new DeviceRateLimits(1, 3);

    assertThat(IntStream.range(0, 3).mapToLong(i -> limits.tryAcquire("flood"))).containsOnly(0L);
    long wait = limits.tryAcquire("flood");

    assertThat(wait).isPositive().isLessThanOrEqualTo(TimeUnit.SECONDS.toNanos(1));
  }

  @Test
  void oneDevicesFloodLeavesTheOthersTheirOwnBuckets() {
    DeviceRateLimits limits = new DeviceRateLimits(1, 2);
    limits.tryAcquire("flood");
    limits.tryAcquire("flood");
    assertThat(limits.tryAcquire("flood")).isPositive();

    assertThat(limits.tryAcquire("calm")).isZero();
    assertThat(limits.tryAcquire("calm")).isZero();
  }

  @Test
  void noneNeverRefuses() {
    assertThat(IntStream.range(0, 10_000).mapToLong(i -> DeviceRateLimits.NONE.tryAcquire("d")))
        .containsOnly(0L);
    assertThatThrownBy(() -> new DeviceRateLimits(0, 1))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
