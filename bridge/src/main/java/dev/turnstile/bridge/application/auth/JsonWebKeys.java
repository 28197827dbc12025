package dev.turnstile.bridge.application.auth;

import com.nimbusds.jose.jwk.JWKSet;
import java.io.IOException;
import java.net.URI;
import java.net.URL;
import java.text.ParseException;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An identity provider's JSON Web Key Set (RFC 7517 §5) as last fetched: the public keys device
 * JWTs are checked against, read without blocking ({@link #current()}), fetched on a thread of its
 * own every refresh interval and, for key rotation, soon after a token names a key the set does not
 * hold or fails the signature check of the keys it holds ({@link #refetchSoon()}, at most once per
 * {@link #MIN_REFETCH}, so tokens naming made-up keys or bearing forged signatures cannot make the
 * bridge hammer the identity provider). A failed fetch is logged (once per distinct problem) and
 * the keys in force stay. Only public keys are kept: private or symmetric members of the set are
 * dropped.
 */
public final class JsonWebKeys implements AutoCloseable {

  /** Least time between two fetches asked for by unknown keys. */
  static final Duration MIN_REFETCH = Duration.ofSeconds(30);

  /** Connect and read timeouts of one fetch, and the largest set read (1 MiB). */
  static final int CONNECT_TIMEOUT_MS = 2_000;

  static final int READ_TIMEOUT_MS = 5_000;
  static final int SIZE_LIMIT_BYTES = 1 << 20;

  private static final Logger LOG = LoggerFactory.getLogger(JsonWebKeys.class);

  /** Where the set comes from: one blocking fetch. */
  @FunctionalInterface
  public interface Source {
    JWKSet fetch() throws IOException, ParseException;
  }

  private final Source source;
  private final String name;
  private final Duration minRefetch;
  private final AtomicReference<JWKSet> current = new AtomicReference<>();
  private final AtomicReference<String> lastProblem = new AtomicReference<>();
  private final AtomicBoolean refetchPending = new AtomicBoolean();
  private final ScheduledExecutorService fetcher;
  private volatile long lastFetchNanos;

  private JsonWebKeys(Source source, String name, Duration minRefetch) {
    this.source = source;
    this.name = name;
    this.minRefetch = minRefetch;
    this.fetcher =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "turnstile-jwks");
              t.setDaemon(true);
              return t;
            });
  }

  /**
   * Fetches the set at {@code uri} now, then every {@code refreshInterval}.
   *
   * @throws IllegalArgumentException naming the problem when the first fetch fails (unreachable,
   *     not a JWK set, larger than 1 MiB, no public key)
   */
  public static JsonWebKeys fetch(URI uri, Duration refreshInterval) {
    URL url;
    try {
      url = uri.toURL();
    } catch (IOException | IllegalArgumentException e) {
      throw new IllegalArgumentException("not a URL: " + uri, e);
    }
    // Logged by scheme, host, port and path: user info or a query could hold a secret.
    String name =
        uri.getScheme()
            + "://"
            + uri.getHost()
            + (uri.getPort() < 0 ? "" : ":" + uri.getPort())
            + uri.getRawPath();
    return start(
        () -> JWKSet.load(url, CONNECT_TIMEOUT_MS, READ_TIMEOUT_MS, SIZE_LIMIT_BYTES),
        name,
        refreshInterval,
        MIN_REFETCH);
  }

  /**
   * Fetches the set from {@code source} now, then every {@code refreshInterval}; a missing key
   * fetches again after {@code minRefetch} at the earliest.
   *
   * @throws IllegalArgumentException naming the problem when the first fetch fails
   */
  public static JsonWebKeys start(
      Source source, String name, Duration refreshInterval, Duration minRefetch) {
    JsonWebKeys keys = new JsonWebKeys(Objects.requireNonNull(source), name, minRefetch);
    try {
      keys.current.set(keys.load());
    } catch (IOException | ParseException | RuntimeException e) {
      keys.close();
      throw new IllegalArgumentException(
          "could not fetch the JWK set from " + name + ": " + describe(e), e);
    }
    long every = refreshInterval.toMillis();
    keys.fetcher.scheduleWithFixedDelay(keys::refresh, every, every, TimeUnit.MILLISECONDS);
    return keys;
  }

  /** The keys as last fetched; never blocks. */
  public JWKSet current() {
    return current.get();
  }

  /**
   * A token named a key the set does not hold, or no key of the set verified its signature (a key
   * replaced under the same {@code kid}): fetch again, off the caller's thread, once {@link
   * #MIN_REFETCH} has passed since the last fetch. Never blocks.
   */
  public void refetchSoon() {
    if (!refetchPending.compareAndSet(false, true)) {
      return;
    }
    long waitNanos = lastFetchNanos + minRefetch.toNanos() - System.nanoTime();
    fetcher.schedule(
        () -> {
          refetchPending.set(false);
          refresh();
        },
        Math.max(0, waitNanos),
        TimeUnit.NANOSECONDS);
  }

  /**
   * Fetches the set now; a failure is logged once per distinct problem and the keys stay.
   *
   * @return whether the keys were replaced by a different set
   */
  boolean refresh() {
    JWKSet fetched;
    try {
      fetched = load();
    } catch (IOException | ParseException | RuntimeException e) {
      String problem = describe(e);
      if (!Objects.equals(lastProblem.getAndSet(problem), problem)) {
        LOG.error("JWK set not fetched from {}, the keys in force stay: {}", name, problem);
      }
      return false;
    }
    lastProblem.set(null);
    JWKSet before = current.getAndSet(fetched);
    boolean changed = !fetched.toJSONObject().equals(before.toJSONObject());
    if (changed) {
      LOG.info("JWK set from {} changed: key ids {}", name, keyIds(fetched));
    }
    return changed;
  }

  private JWKSet load() throws IOException, ParseException {
    lastFetchNanos = System.nanoTime();
    // Private parts dropped, symmetric keys left out (JWKSet.toPublicJWKSet).
    JWKSet publicOnly = source.fetch().toPublicJWKSet();
    if (publicOnly.isEmpty()) {
      throw new ParseException("the set holds no public key", 0);
    }
    return publicOnly;
  }

  private static String keyIds(JWKSet set) {
    return set.getKeys().stream().map(k -> String.valueOf(k.getKeyID())).toList().toString();
  }

  private static String describe(Exception e) {
    return e.getClass().getSimpleName() + ": " + e.getMessage();
  }

  @Override
  public void close() {
    fetcher.shutdownNow();
  }

  @Override
  public String toString() {
    return "JsonWebKeys[" + name + ", " + current.get().getKeys().size() + " keys]";
  }
}
