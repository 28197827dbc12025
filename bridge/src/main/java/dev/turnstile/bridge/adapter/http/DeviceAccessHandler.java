package dev.turnstile.bridge.adapter.http;

import dev.turnstile.bridge.adapter.http.Problems.Kind;
import dev.turnstile.bridge.application.auth.Authentication;
import dev.turnstile.bridge.application.auth.Authentication.Refused;
import dev.turnstile.bridge.metrics.BridgeMetrics;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.PlatformHandler;
import java.util.concurrent.TimeUnit;

/**
 * The door of the device routes: authenticates the request for the deviceId in its path, then takes
 * one request from that device's rate limit, before the body is read. A refused request is answered
 * at once as problem+json and counted ({@code turnstile.bridge.device.events} with outcome {@code
 * rejected} and reason {@code unauthenticated}, {@code forbidden} or {@code rate-limited}); nothing
 * reaches the use case, so nothing is written to Kafka.
 *
 * <p>401 and 403 carry {@code WWW-Authenticate: Bearer} as RFC 6750 §3 describes (no error code
 * when no token was sent, {@code invalid_token} for a bad one, {@code insufficient_scope} for a
 * token of another device); 429 carries {@code Retry-After} in whole seconds, rounded up. A
 * platform handler because Vert.x runs those ahead of the body handler.
 */
final class DeviceAccessHandler implements PlatformHandler {

  static final String REALM = "turnstile";

  private final DeviceAccess access;
  private final BridgeMetrics metrics;

  DeviceAccessHandler(DeviceAccess access, BridgeMetrics metrics) {
    this.access = access;
    this.metrics = metrics;
  }

  @Override
  public void handle(RoutingContext ctx) {
    String deviceId = ctx.pathParam("deviceId");
    if (deviceId == null) {
      ctx.next(); // the events handler answers 400 for it
      return;
    }
    if (access.authenticates()) {
      Authentication authentication =
          access
              .credentials()
              .authenticate(deviceId, ctx.request().headers().getAll("Authorization"));
      if (authentication instanceof Refused refused) {
        refuse(ctx, refused);
        return;
      }
    }
    long waitNanos = access.rateLimits().tryAcquire(deviceId);
    if (waitNanos > 0) {
      metrics.rejected(Kind.RATE_LIMITED.slug);
      long seconds = Math.max(1, (waitNanos + TimeUnit.SECONDS.toNanos(1) - 1) / 1_000_000_000L);
      ctx.response().putHeader("Retry-After", Long.toString(seconds));
      Problems.send(
          ctx,
          Kind.RATE_LIMITED,
          "device " + deviceId + " sends faster than its rate limit; retry in " + seconds + " s");
      return;
    }
    ctx.next();
  }

  private void refuse(RoutingContext ctx, Refused refused) {
    Kind kind;
    String challenge;
    switch (refused.refusal()) {
      case MISSING -> {
        kind = Kind.UNAUTHENTICATED;
        challenge = "Bearer realm=\"" + REALM + "\"";
      }
      case MALFORMED, INVALID -> {
        kind = Kind.UNAUTHENTICATED;
        challenge = "Bearer realm=\"" + REALM + "\", error=\"invalid_token\"";
      }
      default -> {
        kind = Kind.FORBIDDEN;
        challenge = "Bearer realm=\"" + REALM + "\", error=\"insufficient_scope\"";
      }
    }
    metrics.rejected(kind.slug);
    ctx.response().putHeader("WWW-Authenticate", challenge);
    Problems.send(ctx, kind, refused.detail());
  }
}
