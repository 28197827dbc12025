package dev.turnstile.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.turnstile.runtime.cli.ExitCode;
import dev.turnstile.schemas.Generation;
import dev.turnstile.testkit.EmbeddedKafka;
import dev.turnstile.topology.TopologyApplication;
import dev.turnstile.topology.config.TopologyConfig;
import dev.turnstile.topology.generation.CatchUpWatch;
import dev.turnstile.topology.generation.DiffReport;
import dev.turnstile.topology.generation.GenerationCommand;
import dev.turnstile.topology.generation.GenerationDiff;
import dev.turnstile.topology.generation.GenerationDiff.TopicDiff;
import dev.turnstile.topology.generation.GenerationStatus;
import dev.turnstile.topology.generation.OutputView;
import java.io.BufferedReader;
import java.io.PrintWriter;
import java.io.StringReader;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.admin.Admin;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * Generations of the topology on a real broker over the EV data, as the bridge would have received
 * it in 2014-2015 (arrival times spanning the year, resends, reordering, redelivered billing; see
 * {@link EvTimeline}). The default generation runs while the data is written; the others start
 * afterwards and reprocess the raw topics from their earliest offset. Identical rules give equal
 * outputs, with or without a restart mid-way; a shorter session maximum changes exactly the
 * sessions whose {@code Finished} arrived that long after their {@code Started}.
 *
 * <p>{@code -Dturnstile.generations.sessions=3395} runs it on the whole file (default: the first
 * 400 sessions) and prints the figures.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class GenerationsIT {

  static final int SESSIONS = Integer.getInteger("turnstile.generations.sessions", 400);
  static final Duration SHORTER_MAXIMUM = Duration.ofHours(6);
  static final Duration CATCH_UP = Duration.ofMinutes(5);

  @TempDir static Path dirs;
  static EmbeddedKafka kafka;
  static EvTimeline timeline;
  static final List<TopologyApplication> running = new ArrayList<>();
  static TopologyApplication same;

  @BeforeAll
  static void writeTheDataWhileTheDefaultGenerationRuns() throws Exception {
    kafka = EmbeddedKafka.start(dirs.resolve("kafka"));
    List<ChargingSession> rows =
        EvChargingDataset.read(Path.of("..", TurnstileCli.DEFAULT_DATA.toString())).stream()
            .sorted(Comparator.comparing(ChargingSession::created))
            .limit(SESSIONS)
            .toList();
    timeline = new EvTimeline(rows, 20141118L);
    createTopics(Generation.rawInputs(), Generation.DEFAULT);
    TopologyConfig live = config(Generation.DEFAULT, Map.of());
    start(live);
    long started = System.nanoTime();
    long written = timeline.write(kafka.bootstrapServers());
    try (CatchUpWatch watch = CatchUpWatch.start(live, Duration.ofMillis(500), line -> {})) {
      assertThat(watch.awaitCaughtUp(CATCH_UP)).isPresent();
    }
    System.out.printf(
        "EV timeline: %,d sessions, %,d records written (%,d resends, %,d billing redeliveries);"
            + " the default generation processed them as they were written, %.1f s from the first"
            + " write to caught up: %,.0f records/s%n",
        rows.size(),
        written,
        timeline.resends,
        timeline.billingRedeliveries,
        seconds(started),
        written / seconds(started));
  }

  @AfterAll
  static void stop() {
    running.forEach(TopologyApplication::close);
    kafka.close();
  }

  static TopologyConfig config(Generation generation, Map<String, String> rules) throws Exception {
    Map<String, String> values = new HashMap<>();
    values.put("kafka.bootstrap.servers", kafka.bootstrapServers());
    values.put("topology.state-dir", Files.createTempDirectory(dirs, "state").toString());
    values.put("topology.generation", generation.name());
    values.put("topology.num-standby-replicas", "0");
    values.put("topology.punctuate-interval-ms", "1000");
    values.put("topology.http.port", "0");
    // The data spans a year and a reprocessing generation's two paths (sessions, Service Bus)
    // run at their own pace, months apart: the merge must remember a key longer than that, or
    // a late patch starts a new document (docs/changing-a-rule.md, "Determinism").
    values.put("topology.merge.retention-ms", Long.toString(Duration.ofDays(800).toMillis()));
    // Window stores are segmented by their retention: with the shipped 7 days, months of arrival
    // times in a few seconds open a RocksDB segment per store every few days of them, which is
    // most of the run's time. Nothing in the data is resent or referenced that late.
    values.put("topology.dedup.retention-ms", Long.toString(Duration.ofDays(400).toMillis()));
    values.put(
        "topology.session.ended-retention-ms", Long.toString(Duration.ofDays(400).toMillis()));
    values.putAll(rules);
    return TopologyConfig.of(values);
  }

  /**
   * Creates {@code topics} of {@code generation} with the catalogue's layout, kept forever: the
   * records carry 2014-2015 timestamps, which any retention by time would delete at once (a
   * deployment that reprocesses must likewise keep all it wants reprocessed, and outputs as long).
   */
  static void createTopics(List<dev.turnstile.schemas.Topic> topics, Generation generation) {
    kafka.createTopics(
        topics.stream()
            .map(
                t ->
                    LocalStack.newTopic(t, generation.topicName(t, ""))
                        .configs(Map.of("retention.ms", "-1", "cleanup.policy", "delete")))
            .toList());
  }

  /** Creates the generation's output topics and starts it. */
  static TopologyApplication start(TopologyConfig config) throws Exception {
    if (config.generation().isDefault()
        || !topics().contains(config.topic(Generation.outputs().get(0)))) {
      createTopics(Generation.outputs(), config.generation());
    }
    TopologyApplication app = TopologyApplication.start(config);
    running.add(app);
    return app;
  }

  /** Starts a generation and waits until it has caught up; prints how fast it reprocessed. */
  static TopologyApplication reprocess(Generation generation, Map<String, String> rules)
      throws Exception {
    TopologyConfig config = config(generation, rules);
    try (CatchUpWatch watch = CatchUpWatch.start(config, Duration.ofMillis(500), line -> {})) {
      TopologyApplication app = start(config);
      CatchUpWatch.CaughtUp done = watch.awaitCaughtUp(CATCH_UP).orElseThrow();
      System.out.printf(
          "generation %s reprocessed %,d raw records in %.1f s from its start (Kafka Streams"
              + " start-up included): %,.0f records/s%n",
          generation, done.rawOffsetsRead(), done.seconds(), done.perSecond());
      return app;
    }
  }

  static GenerationDiff.Report diff(Generation older, Generation newer) throws Exception {
    return GenerationDiff.compare(
        Map.of("bootstrap.servers", kafka.bootstrapServers()),
        "",
        older,
        newer,
        Duration.ofMinutes(2));
  }

  @Test
  @Order(1)
  void identicalRulesGiveEqualOutputs() throws Exception {
    same = reprocess(Generation.named("same"), Map.of());

    GenerationDiff.Report report = diff(Generation.DEFAULT, Generation.named("same"));

    assertThat(report.allEqual()).as(print(report)).isTrue();
    assertThat(report.topic(OutputView.DEVICE_SESSIONS).equal()).isEqualTo(SESSIONS);
    assertThat(report.topic(OutputView.POST_MERGE).equal()).isEqualTo(SESSIONS);
    // Each session's patch takes the hop; its billing message, keyed by the session, is merged in
    // place and writes nothing there.
    assertThat(report.topic(OutputView.MERGE_INPUTS).equal()).isEqualTo(SESSIONS);
  }

  @Test
  @Order(2)
  void restartingAGenerationMidReprocessChangesNothing() throws Exception {
    Generation restarted = Generation.named("restarted");
    // Small polls, so that it is stopped with most of the input still to read.
    Map<String, String> rules = Map.of("kafka.streams.main.consumer.max.poll.records", "50");
    TopologyConfig first = config(restarted, rules);
    TopologyApplication pod = start(first);
    GenerationStatus midway;
    try (Admin admin = kafka.admin()) {
      midway =
          await()
              .atMost(CATCH_UP)
              .pollInterval(Duration.ofMillis(50))
              .until(
                  () -> GenerationStatus.read(admin, first, Duration.ofSeconds(10)),
                  s -> s.rawOffsetsRead() > 0);
    }
    pod.close();
    running.remove(pod);
    assertThat(midway.caughtUp()).as("stopped before it caught up").isFalse();

    // A replaced pod: another, empty state directory, restored from the changelogs.
    reprocess(restarted, rules);

    GenerationDiff.Report report = diff(Generation.DEFAULT, restarted);
    assertThat(report.allEqual()).as(print(report)).isTrue();
  }

  @Test
  @Order(3)
  void aShorterSessionMaximumChangesExactlyTheSessionsOpenThatLong() throws Exception {
    Generation shorter = Generation.named("session-max-6h");
    reprocess(
        shorter,
        Map.of("topology.session.max-duration-ms", Long.toString(SHORTER_MAXIMUM.toMillis())));
    List<String> expired = timeline.openAtLeast(SHORTER_MAXIMUM);
    assertThat(expired).isNotEmpty().hasSizeLessThan(SESSIONS / 10);

    GenerationDiff.Report report = diff(Generation.DEFAULT, shorter);
    System.out.println(print(report));

    TopicDiff sessions = report.topic(OutputView.DEVICE_SESSIONS);
    assertThat(sessions.differing().stream().map(d -> d.identity().split(" ")[1]).sorted())
        .containsExactlyElementsOf(expired);
    assertThat(sessions.equal()).isEqualTo(SESSIONS - expired.size());
    assertThat(sessions.onlyInOld()).isEmpty();
    assertThat(sessions.onlyInNew()).isEmpty();
    assertThat(sessions.pointers())
        .containsEntry("/type", (long) expired.size())
        .containsEntry("/durationMillis", (long) expired.size());
    assertThat(sessions.differing().get(0).changes())
        .anySatisfy(
            c -> {
              assertThat(c.pointer()).isEqualTo("/type");
              assertThat(c.after().asText()).isEqualTo("Expired");
            });

    TopicDiff rejected = report.topic(OutputView.REJECTED_EVENTS);
    assertThat(rejected.onlyInNew().stream().map(id -> id.split(" ")[2]).sorted())
        .containsExactlyElementsOf(expired.stream().map(s -> s + "-finished").toList());
    assertThat(rejected.onlyInOld()).isEmpty();
    assertThat(rejected.differing()).isEmpty();

    assertThat(
            report.topic(OutputView.MERGE_INPUTS).onlyInOld().stream()
                .map(id -> id.split(" ")[0])
                .sorted())
        .containsExactlyElementsOf(expired);
    assertThat(report.topic(OutputView.MERGE_INPUTS).onlyInNew()).isEmpty();
    assertThat(report.topic(OutputView.MERGE_RESULTS).differing().stream().map(d -> d.identity()))
        .containsExactlyElementsOf(expired);
    assertThat(report.topic(OutputView.POST_MERGE).onlyInOld()).containsExactlyElementsOf(expired);
    assertThat(report.topic(OutputView.POST_MERGE).equal()).isEqualTo(SESSIONS - expired.size());
  }

  @Test
  @Order(4)
  void theCommandsSayStatusAndDifferenceAndRetireAGenerationAfterItsConfirmation()
      throws Exception {
    String bootstrap = kafka.bootstrapServers();
    Run status = run("", "status", "same", "--bootstrap", bootstrap);
    assertThat(status.code()).as(status.err()).isEqualTo(ExitCode.OK);
    assertThat(status.out())
        .contains("application id and consumer group turnstile-topology.same, STABLE")
        .contains("same.merge-inputs.v1")
        .contains("CAUGHT UP");

    Run diff = run("", "diff", "default", "same", "--bootstrap", bootstrap, "--examples", "1");
    assertThat(diff.code()).as(diff.err()).isEqualTo(ExitCode.OK);
    assertThat(diff.out()).contains("ALL EQUAL").doesNotContain("WARNING");

    Run stillRunning = run("same\n", "retire", "same", "--bootstrap", bootstrap);
    assertThat(stillRunning.code()).isEqualTo(ExitCode.CONFIG);
    assertThat(stillRunning.err()).contains("is running");

    same.close();
    running.remove(same);
    Run refused = run("no\n", "retire", "same", "--bootstrap", bootstrap);
    assertThat(refused.code()).isEqualTo(ExitCode.CONFIG);
    assertThat(refused.err()).contains("not confirmed");
    assertThat(topics()).contains("same.device-sessions.v1");

    Run retired = run("same\n", "retire", "same", "--bootstrap", bootstrap);
    assertThat(retired.code()).as(retired.err()).isEqualTo(ExitCode.OK);
    assertThat(retired.out())
        .contains("output topic    same.post-merge.v1")
        .contains("internal topic  turnstile-topology.same-")
        .contains("consumer group  turnstile-topology.same");
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () ->
                assertThat(topics())
                    .noneMatch(
                        t -> t.startsWith("same.") || t.startsWith("turnstile-topology.same-"))
                    .contains(
                        "device-events.raw.v1",
                        "device-sessions.v1",
                        "session-max-6h.post-merge.v1"));
    Run gone = run("", "status", "same", "--bootstrap", bootstrap);
    assertThat(gone.out()).contains("DEAD with 0 members");
  }

  record Run(int code, String out, String err) {}

  static Run run(String console, String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code =
        GenerationCommand.execute(
            new PrintWriter(out, true),
            new PrintWriter(err, true),
            Map.of(),
            new BufferedReader(new StringReader(console)),
            args);
    return new Run(code, out.toString(), err.toString());
  }

  static Set<String> topics() throws Exception {
    try (Admin admin = kafka.admin()) {
      return admin.listTopics().names().get();
    }
  }

  static String print(GenerationDiff.Report report) {
    StringWriter text = new StringWriter();
    DiffReport.print(report, new PrintWriter(text), 3);
    return text.toString();
  }

  static double seconds(long since) {
    return (System.nanoTime() - since) / 1e9;
  }
}
