package dev.turnstile.bridge.adapter.servicebus;

import com.azure.core.amqp.AmqpRetryOptions;
import com.azure.identity.DefaultAzureCredentialBuilder;
import com.azure.messaging.servicebus.ServiceBusClientBuilder;
import com.azure.messaging.servicebus.models.ServiceBusReceiveMode;
import dev.turnstile.bridge.config.ServiceBusConfig;
import dev.turnstile.bridge.port.in.RelayServiceBusMessageUseCase;
import dev.turnstile.bridge.port.in.RelayServiceBusMessageUseCase.AbandonReason;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.LongPredicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Receives from every configured Service Bus entity in peek-lock mode, auto-complete off, and
 * relays each message through the use case: a queue or subscription through the SDK's processor
 * client, a session-enabled one through {@link ServiceBusSessionPump}.
 *
 * <p>When Kafka cannot take a write, the source pauses: each callback holds the message it was
 * given and waits (its lock renewed by the SDK), so the processors ask for nothing more, until
 * Kafka answered a readiness check that began after the pause; then the held messages are relayed.
 * So an outage costs at most the messages that were waiting for Kafka's answer one delivery each,
 * not a trip through their delivery count to the dead-letter queue (an abandoned message is offered
 * again at once, and each offer counts).
 *
 * <p>{@link #close(Duration)} stops taking messages, waits for running callbacks, then closes the
 * clients (7.17.x disposes the receiver under running callbacks, Azure/azure-sdk-for-java#45716).
 */
public final class ServiceBusMessageSource implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(ServiceBusMessageSource.class);

  /** The variable the Azure SDK's managed identity and workload identity credentials read. */
  static final String AZURE_CLIENT_ID = "AZURE_CLIENT_ID";

  private static final Pattern SAS_KEY_NAME =
      Pattern.compile("(?i)(?:^|;)\\s*SharedAccessKeyName\\s*=\\s*([^;]+)");

  private final ServiceBusConfig config;
  private final LongPredicate kafkaReachableSince;
  private final List<ServiceBusEntityReceiver> receivers = new ArrayList<>();
  private final ScheduledExecutorService control;
  private final IntakeGate gate;

  private ServiceBusMessageSource(ServiceBusConfig config, LongPredicate kafkaReachableSince) {
    this.config = config;
    this.kafkaReachableSince = kafkaReachableSince;
    this.control =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread thread = new Thread(r, "turnstile-servicebus-control");
              thread.setDaemon(true);
              return thread;
            });
    this.gate = new IntakeGate(this::pausedForKafka);
  }

  /**
   * Builds one processor client per entity and starts them.
   *
   * @param kafkaReachableSince whether Kafka answered a readiness check that started at or after
   *     the given {@link System#nanoTime()}
   * @param retryOptions the SDK's retry options for every operation (connect, receive, settle)
   */
  public static ServiceBusMessageSource start(
      ServiceBusConfig config,
      RelayServiceBusMessageUseCase useCase,
      LongPredicate kafkaReachableSince,
      MeterRegistry registry,
      AmqpRetryOptions retryOptions) {
    ServiceBusMessageSource source = new ServiceBusMessageSource(config, kafkaReachableSince);
    ServiceBusClientBuilder client = clientBuilder(config).retryOptions(retryOptions);
    for (ServiceBusConfig.Entity entity : config.entities()) {
      source.receivers.add(
          new ServiceBusEntityReceiver(
              entity,
              useCase,
              config.settleTimeout(),
              source.gate,
              receiver -> pump(client, entity, receiver),
              registry));
    }
    source.receivers.forEach(ServiceBusEntityReceiver::start);
    LOG.info(
        "receiving from Service Bus {}: {}",
        config.namespace(),
        config.entities().stream().map(ServiceBusConfig.Entity::entityPath).toList());
    return source;
  }

  /** With the SDK's default retry options. */
  public static ServiceBusMessageSource start(
      ServiceBusConfig config,
      RelayServiceBusMessageUseCase useCase,
      LongPredicate kafkaReachableSince,
      MeterRegistry registry) {
    return start(config, useCase, kafkaReachableSince, registry, new AmqpRetryOptions());
  }

  /**
   * How the bridge reads the entities, as the Auth Context of every relayed event names it: {@code
   * sasKeyName} for a connection string (the key's name, not the key); for {@code
   * DefaultAzureCredential}, {@code credential} and, when {@value #AZURE_CLIENT_ID} is set (as
   * workload identity sets it), {@code azureClientId}: the managed identity it signs in as.
   *
   * @param environment the process environment ({@code System::getenv})
   */
  public static Map<String, String> credentialClaims(
      ServiceBusConfig config, Function<String, String> environment) {
    Map<String, String> claims = new TreeMap<>();
    if (config.connectionString() != null) {
      Matcher keyName = SAS_KEY_NAME.matcher(config.connectionString().value());
      if (keyName.find()) {
        claims.put("sasKeyName", keyName.group(1).trim());
      }
      return claims;
    }
    claims.put("credential", "DefaultAzureCredential");
    String clientId = environment.apply(AZURE_CLIENT_ID);
    if (clientId != null && !clientId.isBlank()) {
      claims.put("azureClientId", clientId.trim());
    }
    return claims;
  }

  private static ServiceBusClientBuilder clientBuilder(ServiceBusConfig config) {
    ServiceBusClientBuilder builder = new ServiceBusClientBuilder();
    if (config.connectionString() != null) {
      return builder.connectionString(config.connectionString().value());
    }
    return builder.credential(config.namespace(), new DefaultAzureCredentialBuilder().build());
  }

  private static MessagePump pump(
      ServiceBusClientBuilder client,
      ServiceBusConfig.Entity entity,
      ServiceBusEntityReceiver receiver) {
    if (entity.sessions()) {
      var builder =
          client
              .sessionReceiver()
              .receiveMode(ServiceBusReceiveMode.PEEK_LOCK)
              .disableAutoComplete()
              .prefetchCount(entity.prefetch())
              .maxAutoLockRenewDuration(entity.maxAutoLockRenew());
      if (entity.queue() != null) {
        builder.queueName(entity.queue());
      } else {
        builder.topicName(entity.topic()).subscriptionName(entity.subscription());
      }
      return new ServiceBusSessionPump(builder.buildClient(), entity, receiver);
    }
    var builder =
        client
            .processor()
            .receiveMode(ServiceBusReceiveMode.PEEK_LOCK)
            .disableAutoComplete()
            .prefetchCount(entity.prefetch())
            .maxConcurrentCalls(entity.maxConcurrentCalls())
            .maxAutoLockRenewDuration(entity.maxAutoLockRenew())
            .processMessage(receiver::processMessage)
            .processError(receiver::processError);
    if (entity.queue() != null) {
      builder.queueName(entity.queue());
    } else {
      builder.topicName(entity.topic()).subscriptionName(entity.subscription());
    }
    return MessagePump.of(builder.buildProcessorClient());
  }

  /** Whether pulling is paused because Kafka could not take a write. */
  public boolean paused() {
    return gate.paused();
  }

  /**
   * The gate just paused: callbacks now wait with their messages (see {@link IntakeGate}); check
   * from the control thread until Kafka is back.
   */
  private void pausedForKafka(AbandonReason reason) {
    LOG.warn(
        "Kafka cannot take writes ({}): every Service Bus receiver holds its messages until it is"
            + " back",
        reason.slug());
    scheduleResumeCheck();
  }

  private void scheduleResumeCheck() {
    control.schedule(
        this::resumeIfKafkaIsBack, config.resumeCheckInterval().toMillis(), TimeUnit.MILLISECONDS);
  }

  private void resumeIfKafkaIsBack() {
    if (!gate.paused()) {
      return;
    }
    if (!kafkaReachableSince.test(gate.pausedAtNanos())) {
      scheduleResumeCheck();
      return;
    }
    if (gate.resume()) {
      LOG.info("Kafka is back: every Service Bus receiver relays again");
    }
  }

  /**
   * Stops taking messages, waits up to {@code timeout} for running callbacks (each waits at most
   * the settle timeout for Kafka), then closes the clients. Call before closing the publisher.
   */
  public void close(Duration timeout) {
    gate.close();
    control.shutdownNow();
    long deadline = System.nanoTime() + timeout.toNanos();
    try {
      control.awaitTermination(timeout.toMillis(), TimeUnit.MILLISECONDS);
      for (ServiceBusEntityReceiver receiver : receivers) {
        if (!receiver.awaitIdle(deadline)) {
          LOG.warn(
              "closing {} with {} callbacks still running; their messages are redelivered",
              receiver.entity().entityPath(),
              receiver.inFlight());
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    for (ServiceBusEntityReceiver receiver : receivers) {
      try {
        receiver.close();
      } catch (RuntimeException e) {
        LOG.warn("closing the receiver of {} failed", receiver.entity().entityPath(), e);
      }
    }
    LOG.info("Service Bus receivers closed");
  }

  @Override
  public void close() {
    close(config.settleTimeout().plusSeconds(1));
  }
}
