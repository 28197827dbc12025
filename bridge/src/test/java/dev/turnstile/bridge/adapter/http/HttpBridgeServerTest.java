package dev.turnstile.bridge.adapter.http;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class HttpBridgeServerTest {

  @Test
  void aRoutePathWithAParameterMatchesOneSegment() {
    String route = HttpBridgeServer.EVENTS_PATH;
    assertThat(HttpBridgeServer.matches(route, "/api/v1/devices/d-1/events")).isTrue();
    assertThat(HttpBridgeServer.matches(route, "/api/v1/devices//events")).isFalse();
    assertThat(HttpBridgeServer.matches(route, "/api/v1/devices/a/b/events")).isFalse();
    assertThat(HttpBridgeServer.matches("/metrics", "/metrics")).isTrue();
    assertThat(HttpBridgeServer.matches("/metrics", "/health/live")).isFalse();
  }
}
