package dev.turnstile.bridge.adapter.http;

import dev.turnstile.bridge.metrics.BridgeMetrics;
import dev.turnstile.bridge.port.in.AuthorizeDeviceRequestUseCase;
import dev.turnstile.bridge.port.in.AuthorizeDeviceRequestUseCase.Allowed;
import dev.turnstile.bridge.port.in.AuthorizeDeviceRequestUseCase.Decision;
import dev.turnstile.bridge.port.in.AuthorizeDeviceRequestUseCase.RateLimited;
import dev.turnstile.bridge.port.in.AuthorizeDeviceRequestUseCase.Refused;
import dev.turnstile.bridge.port.in.AuthorizeDeviceRequestUseCase.Throttled;
import dev.turnstile.runtime.http.Problems;
import dev.turnstile.runtime.http.Problems.Kind;
import dev.turnstile.schemas.AuthContext;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.PlatformHandler;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * The door of the device routes: asks {@link AuthorizeDeviceRequestUseCase} whether the request may
 * go ahead for the deviceId in its path (its token, then that device's rate limit), before the body
 * is read. A refused request is answered at once as problem+json and counted ({@code
 * turnstile.bridge.device.events} with outcome {@code rejected} and reason {@code unauthenticated},
 * {@code forbidden}, {@code rate-limited} or {@code authentication-throttled}); nothing reaches the
 * use case, so nothing is written to Kafka. A client address that failed authentication too often
 * gets 429 {@code authentication-throttled} before its credentials are looked at (its address:
 * {@link ClientAddresses}).
 *
 * <p>401 and 403 carry {@code WWW-Authenticate: Bearer} as RFC 6750 §3 describes (no error code
 * when no token was sent, {@code invalid_token} for a bad one, {@code insufficient_scope} for a
 * token of another device); 429 carries {@code Retry-After} in whole seconds, rounded up. A
 * platform handler because Vert.x runs those ahead of the body handler.
 *
 * <p>An allowed request goes on with its sender ({@link #sender}), which every event it writes
 * records as the CloudEvents Auth Context ({@link AuthContext}).
 */
final class DeviceAccessHandler implements PlatformHandler {

  static final String REALM = "turnstile";

  /** Where an allowed request's sender waits for the handler that writes its events. */
  private static final String SENDER = "turnstile.sender";

  private final AuthorizeDeviceRequestUseCase access;
  private final BridgeMetrics metrics;
  private final ClientAddresses clients;

  /**
   * @param clients how the client's address, for the limit of failed authentications, is found
   */
  DeviceAccessHandler(
      AuthorizeDeviceRequestUseCase access, BridgeMetrics metrics, ClientAddresses clients) {
    this.access = access;
    this.metrics = metrics;
    this.clients = clients;
  }

  @Override
  public void handle(RoutingContext ctx) {
    String deviceId = ctx.pathParam("deviceId");
    if (deviceId == null) {
      ctx.next(); // the events handler answers 400 for it
      return;
    }
    Decision decision =
        access.authorize(
            deviceId, ctx.request().headers().getAll("Authorization"), clients.of(ctx.request()));
    if (decision instanceof Refused refused) {
      refuse(ctx, refused);
    } else if (decision instanceof RateLimited limited) {
      tooMany(
          ctx,
          Kind.RATE_LIMITED,
          limited.retryAfter(),
          "device " + deviceId + " sends faster than its rate limit");
    } else if (decision instanceof Throttled throttled) {
      tooMany(
          ctx,
          Kind.AUTHENTICATION_THROTTLED,
          throttled.retryAfter(),
          "this address failed authentication too often; no credentials are checked from it");
    } else if (decision instanceof Allowed allowed) {
      if (allowed.sender() != null) {
        ctx.put(SENDER, allowed.sender());
      }
      ctx.next();
    } else {
      // Java 17 has no exhaustive pattern switch: a new kind of decision must not pass unchecked.
      throw new IllegalStateException("unhandled device access decision " + decision);
    }
  }

  /**
   * Who sent an allowed request, as its credentials say; {@code null} when authentication is off.
   */
  static AuthContext sender(RoutingContext ctx) {
    return ctx.get(SENDER);
  }

  /** 429 with {@code Retry-After} in whole seconds, rounded up. */
  private void tooMany(RoutingContext ctx, Kind kind, Duration retryAfter, String detail) {
    metrics.rejected(kind.slug);
    long waitNanos = retryAfter.toNanos();
    long seconds = Math.max(1, (waitNanos + TimeUnit.SECONDS.toNanos(1) - 1) / 1_000_000_000L);
    ctx.response().putHeader("Retry-After", Long.toString(seconds));
    Problems.send(ctx, kind, detail + "; retry in " + seconds + " s");
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
