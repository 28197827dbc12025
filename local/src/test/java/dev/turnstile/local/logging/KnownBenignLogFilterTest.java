package dev.turnstile.local.logging;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.joran.JoranConfigurator;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.LoggingEvent;
import ch.qos.logback.core.Appender;
import ch.qos.logback.core.spi.FilterReply;
import java.net.URL;
import org.junit.jupiter.api.Test;

class KnownBenignLogFilterTest {

  private final LoggerContext context = new LoggerContext();
  private final KnownBenignLogFilter filter = new KnownBenignLogFilter();

  @Test
  void dropsTheProducersConcurrentTransactionsRetry() {
    assertThat(
            decide(
                "org.apache.kafka.clients.producer.internals.Sender",
                Level.WARN,
                "[Producer clientId=p, transactionalId=t] Got error produce response with"
                    + " correlation id 78 on topic-partition device-sessions.v1-0, retrying"
                    + " (2147483646 attempts left). Error: CONCURRENT_TRANSACTIONS",
                null))
        .isEqualTo(FilterReply.DENY);
  }

  @Test
  void dropsTheProducersRetryOfItsFirstBatchOfANewEpoch() {
    assertThat(
            decide(
                "org.apache.kafka.clients.producer.internals.Sender",
                Level.WARN,
                "Got error produce response with correlation id 94 on topic-partition"
                    + " merge-inputs.v1-5, retrying (2147483646 attempts left). Error:"
                    + " OUT_OF_ORDER_SEQUENCE_NUMBER",
                null))
        .isEqualTo(FilterReply.DENY);
  }

  @Test
  void keepsEveryOtherProducerError() {
    assertThat(
            decide(
                "org.apache.kafka.clients.producer.internals.Sender",
                Level.WARN,
                "Got error produce response with correlation id 9 on topic-partition x-0, retrying"
                    + " (3 attempts left). Error: NOT_ENOUGH_REPLICAS",
                null))
        .isEqualTo(FilterReply.NEUTRAL);
  }

  @Test
  void dropsTheBrokersOutOfOrderSequenceErrorCarriedByItsException() {
    assertThat(
            decide(
                "kafka.server.ReplicaManager",
                Level.ERROR,
                "[ReplicaManager broker=0] Error processing append operation on partition x-0",
                new org.apache.kafka.common.errors.OutOfOrderSequenceException(
                    "Invalid sequence number for new epoch")))
        .isEqualTo(FilterReply.DENY);
    assertThat(
            decide(
                "kafka.server.ReplicaManager",
                Level.ERROR,
                "[ReplicaManager broker=0] Error processing append operation on partition x-0",
                new IllegalStateException("disk full")))
        .isEqualTo(FilterReply.NEUTRAL);
  }

  @Test
  void dropsTheTempStateDirWarningOnlyForTheLocalStacksOwnFolder() {
    String logger = "org.apache.kafka.streams.processor.internals.StateDirectory";
    String warning =
        "Using an OS temp directory in the state.dir property can cause failures with writing the"
            + " checkpoint file due to the fact that this directory can be cleared by the OS."
            + " Resolved state.dir: [%s]";
    assertThat(
            decide(logger, Level.WARN, warning.formatted("/tmp/turnstile-local-123/streams"), null))
        .isEqualTo(FilterReply.DENY);
    assertThat(decide(logger, Level.WARN, warning.formatted("/tmp/streams"), null))
        .isEqualTo(FilterReply.NEUTRAL);
  }

  @Test
  void dropsTheAzureSdksMediatorMessages() {
    assertThat(
            decide(
                "com.azure.core.amqp.implementation.MessageFlux",
                Level.WARN,
                "{\"az.sdk.message\":\"Setting next mediator and waiting for activation.\"}",
                null))
        .isEqualTo(FilterReply.DENY);
  }

  @Test
  void dropsTheBrokersRaceToCreateTheTransactionLog() {
    assertThat(
            decide(
                "org.apache.kafka.server.DefaultAutoTopicCreationManager",
                Level.WARN,
                "Auto topic creation failed for __transaction_state with error"
                    + " 'TOPIC_ALREADY_EXISTS': Topic '__transaction_state' already exists..",
                null))
        .isEqualTo(FilterReply.DENY);
  }

  @Test
  void keepsTheAzureSdksOtherWarnings() {
    assertThat(
            decide(
                "com.azure.core.amqp.implementation.MessageFlux",
                Level.WARN,
                "{\"az.sdk.message\":\"Terminal error signal from Upstream arrived at MessageFlux.\"}",
                null))
        .isEqualTo(FilterReply.NEUTRAL);
  }

  @Test
  void leavesLinesBelowWarnToTheLevels() {
    assertThat(
            decide(
                "org.apache.kafka.clients.producer.internals.Sender",
                Level.INFO,
                "Error: CONCURRENT_TRANSACTIONS",
                null))
        .isEqualTo(FilterReply.NEUTRAL);
  }

  @Test
  void theLocalStacksLogbackConfigurationFiltersItsStderrAppender() throws Exception {
    URL config = KnownBenignLogFilter.class.getResource("/logback.xml");
    LoggerContext configured = new LoggerContext();
    JoranConfigurator configurator = new JoranConfigurator();
    configurator.setContext(configured);
    configurator.doConfigure(config);
    Appender<ILoggingEvent> stderr =
        configured.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME).getAppender("STDERR");
    assertThat(stderr.getCopyOfAttachedFiltersList())
        .hasAtLeastOneElementOfType(KnownBenignLogFilter.class);
  }

  private FilterReply decide(String logger, Level level, String message, Throwable thrown) {
    LoggingEvent event =
        new LoggingEvent(
            getClass().getName(), context.getLogger(logger), level, message, thrown, null);
    return filter.decide(event);
  }
}
