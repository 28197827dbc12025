package dev.turnstile.faults;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.turnstile.testkit.arch.HarnessBoundary;
import org.junit.jupiter.api.Test;

/**
 * The fault harness uses the topology through its entry points, except where it breaks it: {@link
 * FaultInjector} names the internal methods it stops (a session expiring, a session processor
 * mid-record), which no entry point could offer.
 */
class HarnessBoundaryTest {

  @Test
  void theFaultHarnessUsesTheTopologyThroughItsEntryPointsButWhereItInjects() {
    HarnessBoundary.topologyThroughItsEntryPoints(
            "dev.turnstile.faults", FaultInjector.class.getName())
        .check(HarnessBoundary.mainClasses("dev.turnstile.faults"));
  }

  /** The rule sees a dependency on the topology's internals: without the exemption it fails. */
  @Test
  void theRuleCatchesTheInjectorsDependencyWithoutItsExemption() {
    assertThatThrownBy(
            () ->
                HarnessBoundary.topologyThroughItsEntryPoints("dev.turnstile.faults")
                    .check(HarnessBoundary.mainClasses("dev.turnstile.faults")))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("FaultInjector")
        .hasMessageContaining("DeviceSessions");
  }
}
