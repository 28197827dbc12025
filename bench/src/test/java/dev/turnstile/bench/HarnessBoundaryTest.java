package dev.turnstile.bench;

import dev.turnstile.testkit.arch.HarnessBoundary;
import org.junit.jupiter.api.Test;

/** The benchmarks measure the topology through its entry points only. */
class HarnessBoundaryTest {

  @Test
  void theBenchmarksUseTheTopologyThroughItsEntryPoints() {
    HarnessBoundary.topologyThroughItsEntryPoints("dev.turnstile.bench")
        .check(HarnessBoundary.mainClasses("dev.turnstile.bench"));
  }
}
