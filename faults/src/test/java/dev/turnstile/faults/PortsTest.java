package dev.turnstile.faults;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class PortsTest {

  @Test
  void portsAreDistinctAndBelowTheEphemeralRange() {
    int low = Ports.ephemeralLow();
    Set<Integer> ports = new HashSet<>();
    for (int i = 0; i < 200; i++) {
      int port = Ports.free();
      assertThat(port).isBetween(Ports.LOWEST, low - 1);
      assertThat(ports.add(port)).as("port %d handed out twice", port).isTrue();
    }
  }

  @Test
  void theEphemeralRangeStartsAboveTheLowestPortHandedOut() {
    assertThat(Ports.ephemeralLow()).isGreaterThan(Ports.LOWEST + 1_000);
  }
}
