package dev.turnstile.bridge.adapter.http;

import dev.turnstile.bridge.config.BridgeConfig;
import dev.turnstile.bridge.metrics.BridgeMetrics;
import dev.turnstile.runtime.config.InvalidConfigurationException;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.net.ServerSSLOptions;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * TLS of the HTTP listener: the key material read at start-up and kept current. Every {@link
 * BridgeConfig.HttpTls#reloadInterval()} the files are read again (off the event loops); content
 * that changed and is valid goes to every server instance through Vert.x's {@code
 * HttpServer.updateSSLOptions}, so new connections get it while open ones keep theirs. Content is
 * compared, not modification times: a Kubernetes Secret volume changes by swapping a symlink, which
 * leaves the files' own times as they were. Invalid content (half-written, a key that does not
 * match its certificate, a wrong password) is logged once at WARN and counted ({@code
 * turnstile.bridge.http.tls.reloads}, {@code outcome=failed}); the previous material stays. One
 * reload runs at a time: each new key material is applied, and counted ({@code outcome=applied}),
 * once.
 */
public final class ServerTls {

  private static final Logger LOG = LoggerFactory.getLogger(ServerTls.class);

  private final Vertx vertx;
  private final BridgeConfig.HttpTls config;
  private final BridgeMetrics metrics;
  private volatile TlsKeyMaterial current;
  private final AtomicBoolean reloading = new AtomicBoolean();
  private String lastRefusal;
  private long timer = -1;

  private ServerTls(
      Vertx vertx, BridgeConfig.HttpTls config, BridgeMetrics metrics, TlsKeyMaterial current) {
    this.vertx = vertx;
    this.config = config;
    this.metrics = metrics;
    this.current = current;
  }

  /**
   * Reads the key material; {@code null} when TLS is off.
   *
   * @throws InvalidConfigurationException naming the key whose file cannot be read or does not hold
   *     usable key material
   */
  public static ServerTls load(Vertx vertx, BridgeConfig.HttpTls config, BridgeMetrics metrics) {
    if (!config.enabled()) {
      return null;
    }
    TlsKeyMaterial material = TlsKeyMaterial.read(vertx, config);
    LOG.info("HTTPS on, TLS {}: serving {}", config.protocols(), material.describe());

    ServerTls tls = new ServerTls(vertx, config, metrics, material);
    metrics.tlsServed(() -> tls.current.notAfter().getEpochSecond());
    return tls;
  }

  /** The options a new server starts with. */
  ServerSSLOptions sslOptions() {
    return current.sslOptions(config);
  }

  /**
   * Starts reading the files every reload interval.
   *
   * @param apply hands new options to every server instance; its future fails if one refused them
   */
  public void watch(Function<ServerSSLOptions, Future<Void>> apply) {
    timer = vertx.setPeriodic(config.reloadInterval().toMillis(), tick -> reload(apply));
  }

  /**
   * One reload: reads the files and hands changed, valid material to {@code apply}. A reload asked
   * for while the previous one still reads or applies does nothing. New material becomes current
   * only once every server took it, so an overlapping tick (a reload that outlasts the interval, as
   * on a loaded machine) would find the same material still new, apply it again and count it twice.
   *
   * @return completes once this reload is done (refusals are logged and counted, not failed); at
   *     once when one was already running
   */
  Future<Void> reload(Function<ServerSSLOptions, Future<Void>> apply) {
    if (!reloading.compareAndSet(false, true)) {
      return Future.succeededFuture();
    }
    return vertx
        .executeBlocking(this::changed, false)
        .compose(
            material -> material == null ? Future.<Void>succeededFuture() : apply(material, apply))
        .recover(
            e -> {
              refused("reading it failed: " + e);
              return Future.succeededFuture();
            })
        .andThen(done -> reloading.set(false));
  }

  /** Material that differs from the current one and is valid; {@code null} otherwise. */
  private TlsKeyMaterial changed() {
    TlsKeyMaterial read;
    try {
      read = TlsKeyMaterial.read(vertx, config);
    } catch (InvalidConfigurationException e) {
      refused(e.getMessage());
      return null;
    }
    if (read.sameContentAs(current)) {
      forgetRefusal();
      return null;
    }
    return read;
  }

  private Future<Void> apply(
      TlsKeyMaterial material, Function<ServerSSLOptions, Future<Void>> apply) {
    return apply
        .apply(material.sslOptions(config))
        .<Void>map(
            done -> {
              current = material;
              forgetRefusal();
              metrics.tlsReload("applied");
              LOG.info("HTTPS key material reloaded: now serving {}", material.describe());
              return null;
            })
        .recover(
            e -> {
              refused("a server refused it: " + e);
              return Future.succeededFuture();
            });
  }

  /**
   * Logs and counts a refusal once per distinct failure, not on every tick while the files stay
   * bad.
   */
  private synchronized void refused(String why) {
    if (why.equals(lastRefusal)) {
      return;
    }
    lastRefusal = why;
    metrics.tlsReload("failed");
    LOG.warn("HTTPS key material not reloaded, still serving {}: {}", current.describe(), why);
  }

  private synchronized void forgetRefusal() {
    lastRefusal = null;
  }

  /** Stops watching the files. */
  public void close() {
    if (timer >= 0) {
      vertx.cancelTimer(timer);
    }
  }
}
