package dev.turnstile.faults;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Free loopback ports, chosen once so that a restarted process comes back on the same one.
 *
 * <p>They are taken below the kernel's ephemeral range ({@code net.ipv4.ip_local_port_range},
 * 32768–60999 by default on Linux), never from it: the kernel gives ports of that range to every
 * outgoing connection, so a port chosen there and bound a moment later (or again after a restart)
 * may by then be the local end of a broker's or a client's connection, and the process fails with
 * "Address already in use". That happened to a broker at the start of a full run.
 */
final class Ports {

  /** Lowest port handed out: above the registered ports most services listen on. */
  static final int LOWEST = 20_000;

  private static final Path EPHEMERAL_RANGE = Path.of("/proc/sys/net/ipv4/ip_local_port_range");

  /** Ports already handed out by this JVM: a stopped process's port stays its own. */
  private static final Set<Integer> GIVEN = new HashSet<>();

  private Ports() {}

  /**
   * A port that is free now, outside the ephemeral range and not handed out before by this JVM.
   *
   * @throws IllegalStateException when no such port is found in 1,000 tries
   */
  static synchronized int free() {
    int below = ephemeralLow();
    for (int attempt = 0; attempt < 1_000; attempt++) {
      int port = ThreadLocalRandom.current().nextInt(LOWEST, below);
      if (!GIVEN.contains(port) && bindable(port)) {
        GIVEN.add(port);
        return port;
      }
    }
    throw new IllegalStateException(
        "no free loopback port between " + LOWEST + " and " + below + " in 1,000 tries");
  }

  /** The first port of the kernel's ephemeral range; 32768 when it cannot be read. */
  static int ephemeralLow() {
    try {
      String[] range = Files.readString(EPHEMERAL_RANGE).trim().split("\\s+");
      int low = Integer.parseInt(range[0]);
      return low > LOWEST + 1_000 ? low : 32_768;
    } catch (IOException | RuntimeException e) {
      return 32_768;
    }
  }

  private static boolean bindable(int port) {
    try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
      return true;
    } catch (IOException e) {
      return false;
    }
  }
}
