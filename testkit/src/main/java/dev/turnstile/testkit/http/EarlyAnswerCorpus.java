package dev.turnstile.testkit.http;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.turnstile.testkit.http.RawHttpConnection.End;
import dev.turnstile.testkit.http.RawHttpConnection.Exchange;
import dev.turnstile.testkit.http.RawHttpConnection.Response;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * The general test of an answer sent before the request's body was read (issue 25, item 1), for any
 * of Turnstile's HTTP servers: every early answer the server gives × with and without {@code
 * Expect: 100-continue} × the declared body sent, not sent or partly sent × a second request
 * pipelined behind it or sent once the first answer came, each over its own raw loopback
 * connection. A case passes when the second request is answered correctly, or when the first answer
 * said {@code Connection: close} and the connection then closed; it fails when the second request
 * is read as the first one's body (a wrong or missing answer to it), when the server answers on
 * after saying it closes, or when the connection is held open with nothing said past the deadline.
 *
 * <p>Cases run at once, each on its own thread: a server that lingers before it closes (RFC 9112
 * §9.6) would otherwise make the corpus take minutes. No JUnit here (the testkit also runs the
 * local stack): each case gives a {@link Verdict} to assert on.
 */
public final class EarlyAnswerCorpus {

  /**
   * One request that gets its answer before its body is read.
   *
   * @param head the request line and header fields, each ending in CRLF, without {@code
   *     Content-Length}, {@code Expect} and the empty line that ends the head: the corpus adds them
   * @param body the body it declares, of which the corpus sends all, none or half
   */
  public record Request(String head, byte[] body) {}

  /** Prepares a fresh {@link Request}, once per case, on the case's thread. */
  @FunctionalInterface
  public interface Provocation {
    /** May send requests of its own first (e.g. to spend a rate limit). */
    Request prepare() throws IOException;
  }

  /**
   * An early answer of the server under test.
   *
   * @param name for the case names
   * @param status the answer's status code
   */
  public record EarlyAnswer(String name, int status, Provocation provocation) {}

  /**
   * The request sent second and what answers it correctly.
   *
   * @param request whole, e.g. {@code GET /health/live HTTP/1.1\r\nHost: x\r\n\r\n}
   * @param bodyContains text its answer's body holds
   */
  public record Second(String request, int status, String bodyContains) {}

  /** How much of the declared body is sent. */
  public enum Body {
    SENT,
    NOT_SENT,
    PARTLY_SENT
  }

  /** When the second request is sent. */
  public enum Timing {
    /** In the same write as the first request, before any answer. */
    PIPELINED,
    /** Once the first answer came, as a client reusing its connection does. */
    AFTER_ANSWER
  }

  /** One case. */
  public record Case(EarlyAnswer early, boolean expectContinue, Body body, Timing timing) {
    @Override
    public String toString() {
      return early.name()
          + " "
          + early.status()
          + (expectContinue ? ", Expect: 100-continue" : "")
          + ", body "
          + body.name().toLowerCase().replace('_', ' ')
          + ", second request "
          + timing.name().toLowerCase().replace('_', ' ');
    }
  }

  /**
   * What became of one case.
   *
   * @param problems empty when the case passed
   * @param exchange what was read, for a failure's message; {@code null} when the case could not
   *     run
   */
  public record Verdict(Case c, List<String> problems, Exchange exchange) {
    public String name() {
      return c.toString();
    }
  }

  private EarlyAnswerCorpus() {}

  /** Every combination of the answers with the three other dimensions. */
  public static List<Case> cases(List<EarlyAnswer> answers) {
    List<Case> cases = new ArrayList<>();
    for (EarlyAnswer early : answers) {
      for (boolean expect : new boolean[] {false, true}) {
        for (Body body : Body.values()) {
          for (Timing timing : Timing.values()) {
            cases.add(new Case(early, expect, body, timing));
          }
        }
      }
    }
    return cases;
  }

  /**
   * Runs every case against the server on {@code port}, all at once.
   *
   * @param deadline how long a connection may stay open with nothing said: well under the server's
   *     idle and body timeouts, well over its lingering close
   */
  public static List<Verdict> run(
      int port, List<EarlyAnswer> answers, Second second, Duration deadline) {
    List<Case> cases = cases(answers);
    ExecutorService threads = Executors.newFixedThreadPool(cases.size());
    try {
      List<CompletableFuture<Verdict>> verdicts =
          cases.stream()
              .map(
                  c -> CompletableFuture.supplyAsync(() -> run(port, c, second, deadline), threads))
              .toList();
      CompletableFuture.allOf(verdicts.toArray(CompletableFuture[]::new))
          .orTimeout(3 * deadline.toMillis() + 30_000, TimeUnit.MILLISECONDS)
          .exceptionally(late -> null)
          .join();
      List<Verdict> done = new ArrayList<>();
      for (int i = 0; i < cases.size(); i++) {
        CompletableFuture<Verdict> verdict = verdicts.get(i);
        done.add(
            verdict.isDone()
                ? verdict.join()
                : new Verdict(cases.get(i), List.of("did not end in time"), null));
      }
      return done;
    } finally {
      threads.shutdownNow();
    }
  }

  private static Verdict run(int port, Case c, Second second, Duration deadline) {
    try {
      Request request = c.early().provocation().prepare();
      byte[] body = request.body();
      int sent =
          switch (c.body()) {
            case SENT -> body.length;
            case NOT_SENT -> 0;
            case PARTLY_SENT -> body.length / 2;
          };
      String first =
          request.head()
              + "Content-Length: "
              + body.length
              + "\r\n"
              + (c.expectContinue() ? "Expect: 100-continue\r\n" : "")
              + "\r\n"
              + new String(body, 0, sent, UTF_8);
      try (RawHttpConnection connection = RawHttpConnection.open(port)) {
        Exchange exchange;
        if (c.timing() == Timing.PIPELINED) {
          connection.send(first + second.request());
          exchange = connection.read(2, deadline);
        } else {
          connection.send(first);
          Exchange answer = connection.read(1, deadline);
          Exchange rest =
              answer.end() != End.ANSWERED || !connection.send(second.request())
                  ? new Exchange(List.of(), 0, answer.end(), Duration.ZERO)
                  : connection.read(1, deadline);
          List<Response> all = new ArrayList<>(answer.responses());
          all.addAll(rest.responses());
          exchange =
              new Exchange(
                  all,
                  answer.interim() + rest.interim(),
                  rest.end(),
                  answer.elapsed().plus(rest.elapsed()));
        }
        Exchange after =
            exchange.responses().size() == 2 ? connection.read(1, Duration.ofMillis(300)) : null;
        return new Verdict(c, problems(c, second, exchange, after, deadline), exchange);
      }
    } catch (IOException | RuntimeException e) {
      return new Verdict(c, List.of("could not run: " + e), null);
    }
  }

  private static List<String> problems(
      Case c, Second second, Exchange exchange, Exchange after, Duration deadline) {
    List<String> problems = new ArrayList<>();
    List<Response> responses = exchange.responses();
    if (exchange.end() == End.HELD) {
      problems.add("held open after " + responses.size() + " answers for " + deadline);
    }
    if (responses.isEmpty()) {
      problems.add("no answer");
      return problems;
    }
    Response first = responses.get(0);
    if (first.status() != c.early().status()) {
      problems.add("first answer " + first.status() + ": " + first.body());
    }
    if (first.status() >= 400 && !"application/problem+json".equals(first.header("content-type"))) {
      problems.add("first answer not problem+json: " + first.header("content-type"));
    }
    if (c.expectContinue() && exchange.interim() > 0) {
      problems.add("100 Continue sent, then an answer without reading the body");
    }
    if (responses.size() == 1) {
      if (exchange.end() == End.CLOSED && !first.announcesClose()) {
        problems.add("closed without saying Connection: close");
      }
    } else {
      Response answer = responses.get(1);
      if (first.announcesClose()) {
        problems.add("said Connection: close, then answered on: " + answer.status());
      }
      if (answer.status() != second.status() || !answer.body().contains(second.bodyContains())) {
        problems.add(
            "the second request read as something else: " + answer.status() + " " + answer.body());
      }
      if (after != null && !after.responses().isEmpty()) {
        problems.add("more answers than requests: " + after.responses());
      }
    }
    return problems;
  }
}
