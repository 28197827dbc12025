package dev.turnstile.bridge.adapter.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.turnstile.bridge.config.BridgeConfig;
import dev.turnstile.bridge.config.BridgeConfigLoader;
import dev.turnstile.bridge.metrics.BridgeMetrics;
import dev.turnstile.bridge.port.in.AcceptDeviceEventUseCase;
import dev.turnstile.bridge.port.in.AuthorizeDeviceRequestUseCase.Allowed;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 14: one event loop served every connection. The HTTP server now runs one instance per
 * configured event loop on one port, and connections are spread over them; real HTTP on loopback,
 * the use case (our own port) answering at once.
 */
class EventLoopsIT {

  private final Set<String> handledOn = ConcurrentHashMap.newKeySet();
  private Vertx vertx;

  private final AcceptDeviceEventUseCase useCase =
      new AcceptDeviceEventUseCase() {
        @Override
        public CompletionStage<Outcome> accept(AcceptDeviceEventCommand command) {
          handledOn.add(Thread.currentThread().getName());
          return CompletableFuture.completedFuture(new Duplicate(command.eventId(), false));
        }

        @Override
        public CompletionStage<List<Outcome>> acceptAll(List<AcceptDeviceEventCommand> commands) {
          throw new UnsupportedOperationException("single events only here");
        }
      };

  @AfterEach
  void close() throws Exception {
    if (vertx != null) {
      vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void connectionsAreSpreadOverEveryEventLoopOnOnePort() throws Exception {
    HttpBridgeServer server = start(3);

    for (int connection = 0; connection < 6; connection++) {
      assertThat(postOnNewConnection(server.port(), "e-" + connection)).startsWith("HTTP/1.1 200");
    }

    assertThat(handledOn).hasSize(3).allMatch(name -> name.startsWith("vert.x-eventloop-thread"));
  }

  @Test
  void oneEventLoopServesEverythingWhenConfiguredSo() throws Exception {
    HttpBridgeServer server = start(1);

    for (int connection = 0; connection < 4; connection++) {
      assertThat(postOnNewConnection(server.port(), "e-" + connection)).startsWith("HTTP/1.1 200");
    }

    assertThat(handledOn).hasSize(1);
  }

  private HttpBridgeServer start(int eventLoops) throws Exception {
    BridgeConfig config =
        BridgeConfigLoader.fromMap(
            Map.of(
                "kafka.bootstrap.servers", "127.0.0.1:9",
                "bridge.auth.enabled", "false", // not about authentication
                "bridge.http.host", "127.0.0.1",
                "bridge.http.port", "0",
                "bridge.http.event-loops", Integer.toString(eventLoops)));
    vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(eventLoops));
    return HttpBridgeServer.start(
            vertx,
            config,
            (deviceId, authorization, client) -> new Allowed(),
            useCase,
            new BridgeMetrics(new SimpleMeterRegistry()),
            () -> true,
            () -> "",
            null)
        .toCompletionStage()
        .toCompletableFuture()
        .get(10, TimeUnit.SECONDS);
  }

  /** One request on a connection of its own, closed after the answer; the status line. */
  private static String postOnNewConnection(int port, String eventId) throws IOException {
    String body =
        "{\"eventId\":\""
            + eventId
            + "\",\"type\":\"Started\",\"occurredAt\":\"2014-11-18T15:40:26Z\"}";
    try (Socket socket = new Socket("127.0.0.1", port)) {
      socket.setSoTimeout((int) Duration.ofSeconds(10).toMillis());
      OutputStream out = socket.getOutputStream();
      out.write(
          ("POST /api/v1/devices/station-1/events HTTP/1.1\r\nHost: localhost\r\n"
                  + "Content-Type: application/json\r\nConnection: close\r\nContent-Length: "
                  + body.getBytes(StandardCharsets.UTF_8).length
                  + "\r\n\r\n"
                  + body)
              .getBytes(StandardCharsets.UTF_8));
      out.flush();
      InputStream in = socket.getInputStream();
      String answer = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      return answer.lines().findFirst().orElse("");
    }
  }
}
