package dev.turnstile.local.logging;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.core.filter.Filter;
import ch.qos.logback.core.spi.FilterReply;
import java.util.List;

/**
 * Drops the WARN and ERROR lines that are known to be benign, so that stderr of {@code ./turnstile
 * demo|up} shows problems only. Each rule names a logger and a text the line (or its exception)
 * must contain; everything else from the same logger still passes. docs/operations.md lists the
 * same messages and why each is benign ("Logs").
 */
public final class KnownBenignLogFilter extends Filter<ILoggingEvent> {

  /** The local stack keeps its data in a temporary folder whose name starts with this. */
  public static final String LOCAL_STACK_HOME_PREFIX = "turnstile-local-";

  /**
   * A known benign message.
   *
   * @param logger the logger's name, or a prefix of it ending in {@code .}
   * @param text text the formatted message, or the class name or message of its exception, contains
   * @param why one line for docs/operations.md
   */
  record Benign(String logger, String text, String why) {
    boolean matches(ILoggingEvent event) {
      String name = event.getLoggerName();
      boolean logger = logger().endsWith(".") ? name.startsWith(logger()) : name.equals(logger());
      return logger && mentions(event);
    }

    private boolean mentions(ILoggingEvent event) {
      if (event.getFormattedMessage() != null && event.getFormattedMessage().contains(text)) {
        return true;
      }
      for (IThrowableProxy t = event.getThrowableProxy(); t != null; t = t.getCause()) {
        if (t.getClassName().contains(text)
            || (t.getMessage() != null && t.getMessage().contains(text))) {
          return true;
        }
      }
      return false;
    }
  }

  static final List<Benign> KNOWN =
      List.of(
          new Benign(
              "org.apache.kafka.clients.producer.internals.Sender",
              "CONCURRENT_TRANSACTIONS",
              "under transactions v2 a transactional producer's first send after a commit can find"
                  + " the previous transaction still completing; it retries and succeeds"),
          new Benign(
              "org.apache.kafka.clients.producer.internals.Sender",
              "Error: OUT_OF_ORDER_SEQUENCE_NUMBER",
              "the producer's side of KAFKA-18202 (below): it retries the first batch of a new"
                  + " epoch and succeeds"),
          new Benign(
              "kafka.server.ReplicaManager",
              "OutOfOrderSequenceException",
              "the broker logs a transactional producer's first batch of a new epoch at ERROR"
                  + " (KAFKA-18202); the producer retries and succeeds"),
          new Benign(
              "com.azure.core.amqp.implementation.MessageFlux",
              "mediator",
              "the Azure SDK reports at WARN that its receive link is being (re)attached"),
          new Benign(
              "com.azure.core.amqp.implementation.MessageFlux",
              "Downstream cancellation signal arrived",
              "the Azure SDK reports at WARN that the receiver it serves was closed, as on every"
                  + " stop"),
          new Benign(
              "org.apache.kafka.streams.processor.internals.StateDirectory",
              LOCAL_STACK_HOME_PREFIX,
              "the local stack keeps its RocksDB state in its temporary folder on purpose and"
                  + " deletes it when it stops"),
          new Benign(
              "org.apache.kafka.controller.QuorumController",
              "Performing controller activation",
              "the in-process broker starts on an empty metadata log, as every local run does"),
          new Benign(
              "org.apache.kafka.server.DefaultAutoTopicCreationManager",
              "error 'TOPIC_ALREADY_EXISTS'",
              "several clients asked the in-process broker for the transaction coordinator at"
                  + " once; each request tries to create __transaction_state, one succeeds"),
          new Benign(
              "org.apache.kafka.clients.NetworkClient",
              "Attempting to close NetworkClient that has already been closed",
              "the in-process broker closes its controller channel twice while it stops"),
          new Benign(
              "io.micrometer.core.instrument.MeterRegistry",
              "has been already registered",
              "a store's metric that Kafka Streams re-created when its task moved is bound again;"
                  + " the gauge already bound keeps reading the current value"),
          new Benign(
              "org.apache.kafka.streams.StreamsConfig",
              "processing.exception.handler.global.enabled",
              "Kafka Streams 4.4's partition assignor builds its own copy of the configuration"
                  + " without the key, which Turnstile sets to true; there are no global stores"));

  @Override
  public FilterReply decide(ILoggingEvent event) {
    if (!event.getLevel().isGreaterOrEqual(Level.WARN)) {
      return FilterReply.NEUTRAL;
    }
    for (Benign benign : KNOWN) {
      if (benign.matches(event)) {
        return FilterReply.DENY;
      }
    }
    return FilterReply.NEUTRAL;
  }
}
