package dev.turnstile.local;

import dev.turnstile.testkit.arch.HarnessBoundary;
import org.junit.jupiter.api.Test;

/** The local stack and the demo use the topology through its entry points only. */
class HarnessBoundaryTest {

  @Test
  void theLocalStackUsesTheTopologyThroughItsEntryPoints() {
    HarnessBoundary.topologyThroughItsEntryPoints("dev.turnstile.local")
        .check(HarnessBoundary.mainClasses("dev.turnstile.local"));
  }
}
