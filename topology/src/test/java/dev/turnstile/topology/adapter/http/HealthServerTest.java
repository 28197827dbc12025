package dev.turnstile.topology.adapter.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class HealthServerTest {

  final HttpClient http = HttpClient.newHttpClient();

  @Test
  void probesFollowTheirChecksAndMetricsAreServed() throws Exception {
    AtomicBoolean ready = new AtomicBoolean(false);
    try (HealthServer server =
        HealthServer.start(
            "127.0.0.1", 0, () -> true, ready::get, () -> "REBALANCING", () -> "m_total 1\n")) {
      assertThat(get(server, "/health/live").statusCode()).isEqualTo(200);
      HttpResponse<String> notReady = get(server, "/health/ready");
      assertThat(notReady.statusCode()).isEqualTo(503);
      assertThat(notReady.body()).contains("\"state\":\"REBALANCING\"");

      ready.set(true);
      assertThat(get(server, "/health/ready").statusCode()).isEqualTo(200);
      assertThat(get(server, "/metrics").body()).isEqualTo("m_total 1\n");
    }
  }

  private HttpResponse<String> get(HealthServer server, String path) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path)).build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
