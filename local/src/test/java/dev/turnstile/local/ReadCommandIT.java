package dev.turnstile.local;

import static org.assertj.core.api.Assertions.assertThat;

import dev.turnstile.testkit.EmbeddedKafka;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code ./turnstile read} on a mistyped topic, against a broker that allows auto-creation (as a
 * broker does by default): it says there is no such topic, every time, and creates nothing.
 */
class ReadCommandIT {

  @TempDir static Path home;
  static EmbeddedKafka kafka;

  @BeforeAll
  static void start() {
    kafka = EmbeddedKafka.start(home, Map.of("auto.create.topics.enable", "true"));
    kafka.createTopics(List.of(new NewTopic("device-sessions.v1", 1, (short) 1)));
  }

  @AfterAll
  static void stop() {
    kafka.close();
  }

  @Test
  void readingAMissingTopicCreatesNoTopicAndKeepsSayingSo() throws Exception {
    Set<String> before = topics();

    for (int run = 1; run <= 2; run++) {
      int exit = read("device-session.v1");
      assertThat(exit).as("exit code of run %d", run).isEqualTo(2);
    }

    assertThat(topics()).isEqualTo(before).doesNotContain("device-session.v1");
  }

  @Test
  void readingAnExistingEmptyTopicSucceedsAndSaysItHeldNothing() {
    java.io.PrintStream err = System.err;
    java.io.ByteArrayOutputStream captured = new java.io.ByteArrayOutputStream();
    System.setErr(new java.io.PrintStream(captured, true, java.nio.charset.StandardCharsets.UTF_8));
    try {
      assertThat(read("device-sessions.v1")).isZero();
    } finally {
      System.setErr(err);
    }
    assertThat(captured.toString(java.nio.charset.StandardCharsets.UTF_8))
        .contains("turnstile read: 0 records in device-sessions.v1");
  }

  private static int read(String topic) {
    return new CommandLine(new TurnstileCli())
        .execute("read", topic, "--bootstrap", kafka.bootstrapServers(), "--idle-ms", "200");
  }

  private static Set<String> topics() throws Exception {
    try (Admin admin = kafka.admin()) {
      return admin.listTopics().names().get();
    }
  }
}
