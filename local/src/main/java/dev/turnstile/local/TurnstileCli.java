package dev.turnstile.local;

import com.azure.messaging.servicebus.ServiceBusMessage;
import dev.turnstile.schemas.Generation;
import dev.turnstile.schemas.Topic;
import dev.turnstile.schemas.TopicCatalogue;
import dev.turnstile.topology.TopologyServer;
import dev.turnstile.topology.config.TopologyConfig;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.stream.Collectors;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code ./turnstile demo|up|read|send-billing}: the local stack on one machine. */
@Command(
    name = "turnstile",
    mixinStandardHelpOptions = true,
    subcommands = {
      TurnstileCli.DemoCommand.class,
      TurnstileCli.UpCommand.class,
      TurnstileCli.ReadCommand.class,
      TurnstileCli.SendBillingCommand.class
    },
    description = "Turnstile on one machine: an in-process Kafka, the topology and the bridge.")
public final class TurnstileCli implements Runnable {

  static final Path DEFAULT_DATA = EvChargingDataset.SHIPPED;

  @Override
  public void run() {
    new CommandLine(this).usage(System.out);
  }

  public static void main(String[] args) {
    System.exit(new CommandLine(new TurnstileCli()).execute(args));
  }

  @Command(
      name = "demo",
      mixinStandardHelpOptions = true,
      description =
          "Replays the EV charging data through the real HTTP endpoint with injected resends and"
              + " reordering, reads the outputs read_committed and reconciles them with the CSV."
              + " Exits 0 only if every figure matches.")
  static final class DemoCommand implements Callable<Integer> {
    @Option(names = "--data", description = "CSV to replay (default: ${DEFAULT-VALUE})")
    Path data = DEFAULT_DATA;

    @Option(names = "--json", description = "also write the figures to this JSON file")
    Path json;

    @Option(
        names = "--seed",
        description = "seed of the injected faults (default: ${DEFAULT-VALUE})")
    long seed = 20141118L;

    @Option(
        names = "--duplicate-fraction",
        description = "fraction of events sent twice (default: ${DEFAULT-VALUE})")
    double duplicateFraction = 0.15;

    @Option(
        names = "--reorder-fraction",
        description = "fraction of sessions sent Finished first (default: ${DEFAULT-VALUE})")
    double reorderFraction = 0.25;

    @Option(names = "--concurrency", description = "requests in flight (default: ${DEFAULT-VALUE})")
    int concurrency = 32;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
      if (!java.nio.file.Files.isReadable(data)) {
        throw new CommandLine.ParameterException(
            spec.commandLine(), "--data: cannot read " + data.toAbsolutePath());
      }
      if (concurrency < 1) {
        throw new CommandLine.ParameterException(spec.commandLine(), "--concurrency must be >= 1");
      }
      if (duplicateFraction < 0
          || duplicateFraction > 1
          || reorderFraction < 0
          || reorderFraction > 1) {
        throw new CommandLine.ParameterException(
            spec.commandLine(), "--duplicate-fraction and --reorder-fraction must be within 0..1");
      }
      Replayer.Plan plan = new Replayer.Plan(seed, reorderFraction, duplicateFraction, concurrency);
      return new Demo(System.out).run(data, json, plan) ? 0 : 1;
    }
  }

  @Command(
      name = "up",
      mixinStandardHelpOptions = true,
      description = "Starts the local stack and leaves it running until Ctrl-C.")
  static final class UpCommand implements Callable<Integer> {
    @Option(names = "--port", description = "HTTP port of the bridge (default: ${DEFAULT-VALUE})")
    int port = 8080;

    @Option(
        names = "--topology-port",
        description =
            "HTTP port of the topology: probes, metrics, queries (default: ${DEFAULT-VALUE})")
    int topologyPort = 8081;

    @Option(
        names = "--generation",
        paramLabel = "NAME",
        description =
            "also run a second generation of the topology, NAME, beside the first: its own"
                + " application id, state and output topics (NAME.device-sessions.v1, ...),"
                + " the same raw topics (docs/changing-a-rule.md)")
    String generation;

    @Option(
        names = "--generation-config",
        paramLabel = "FILE",
        description =
            "topology properties of the second generation: the rule it changes, e.g."
                + " topology.session.max-duration-ms=28800000")
    Path generationConfig;

    @Option(
        names = "--generation-port",
        description = "HTTP port of the second generation (default: ${DEFAULT-VALUE})")
    int generationPort = 8082;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
      Generation second = null;
      Map<String, String> secondValues = new java.util.HashMap<>();
      if (generation != null) {
        try {
          second = Generation.named(generation);
          if (second.isDefault()) {
            throw new IllegalArgumentException("the generation without a name runs anyway");
          }
        } catch (IllegalArgumentException e) {
          throw new CommandLine.ParameterException(
              spec.commandLine(), "--generation: " + e.getMessage());
        }
        if (generationConfig != null) {
          java.util.Properties file = new java.util.Properties();
          try (var reader = java.nio.file.Files.newBufferedReader(generationConfig)) {
            file.load(reader);
          } catch (java.io.IOException e) {
            throw new CommandLine.ParameterException(
                spec.commandLine(), "--generation-config: cannot read " + generationConfig);
          }
          file.stringPropertyNames().forEach(k -> secondValues.put(k, file.getProperty(k).trim()));
        }
        secondValues.put("topology.http.port", Integer.toString(generationPort));
      } else if (generationConfig != null) {
        throw new CommandLine.ParameterException(
            spec.commandLine(), "--generation-config needs --generation");
      }
      LocalStack stack;
      TopologyServer secondTopology = null;
      try {
        stack =
            LocalStack.start(port, Map.of("topology.http.port", Integer.toString(topologyPort)));
      } catch (IllegalArgumentException e) {
        System.err.println("turnstile up: " + e.getMessage());
        return 2;
      }
      if (second != null) {
        try {
          secondTopology = stack.startGeneration(second, secondValues);
        } catch (RuntimeException e) {
          stack.close();
          System.err.println("turnstile up: generation " + second + ": " + e.getMessage());
          return 2;
        }
      }
      CountDownLatch stopped = new CountDownLatch(1);
      Runtime.getRuntime()
          .addShutdownHook(
              new Thread(
                  () -> {
                    System.out.println("Stopping...");
                    stack.close();
                    stopped.countDown();
                  },
                  "turnstile-up-shutdown"));
      System.out.printf(
          "Turnstile is up (data in a temporary folder, deleted on stop).%n"
              + "  HTTP bridge:        http://127.0.0.1:%d  (POST /api/v1/devices/{deviceId}/events"
              + " and .../events:batch, /health/live, /health/ready, /metrics; described in"
              + " /openapi/bridge.v1.openapi.yaml)%n"
              + "  Topology HTTP:      http://127.0.0.1:%d  (GET /api/v1/devices/{deviceId}/sessions,"
              + " /api/v1/merge/{mergeKey}, /health/live, /health/ready, /metrics; described in"
              + " /openapi/topology.v1.openapi.yaml)%n"
              + "  Kafka bootstrap:    %s%n"
              + "  Service Bus queue:  %s  on  %s%n"
              + "  Topics:             %s%n"
              + "  Device token:       %s  (a fleet token: valid for every deviceId of this"
              + " stack)%n"
              + "  Device credentials: %s  (reloaded within 10 s; add a device with"
              + " ./turnstile device-token DEVICE --append <that file>)%n"
              + "Send an event (device requests need the token; without it: 401):%n"
              + "  curl -i -H 'Authorization: Bearer %s' -H 'Content-Type: application/json' \\%n"
              + "    -d '{\"eventId\":\"e-1\",\"type\":\"Started\","
              + "\"occurredAt\":\"2015-01-01T10:00:00Z\"}' \\%n"
              + "    http://127.0.0.1:%d/api/v1/devices/station-1/events%n"
              + "Then ask the topology for the device's sessions:%n"
              + "  curl -s http://127.0.0.1:%d/api/v1/devices/station-1/sessions%n"
              + "Logs go to stderr. Press Ctrl-C to stop.%n",
          stack.httpPort(),
          stack.topologyHealthPort(),
          stack.bootstrapServers(),
          LocalStack.BILLING_QUEUE,
          stack.serviceBus().connectionString(),
          TopicCatalogue.ALL.stream().map(Topic::baseName).collect(Collectors.joining(", ")),
          stack.deviceToken(),
          stack.credentialsFile(),
          stack.deviceToken(),
          stack.httpPort(),
          stack.topologyHealthPort());
      if (secondTopology != null) {
        TopologyConfig secondConfig = secondTopology.config();
        System.out.printf(
            "Second generation %s: topology HTTP http://127.0.0.1:%d, outputs %s, application"
                + " id %s. Compare it with the first (once both have caught up):%n"
                + "  ./turnstile generation diff default %s --bootstrap %s%n",
            second,
            secondTopology.httpPort(),
            Generation.outputs().stream()
                .map(secondConfig::topic)
                .collect(Collectors.joining(", ")),
            secondConfig.applicationId(),
            second,
            stack.bootstrapServers());
      }
      stopped.await();
      return 0;
    }
  }

  @Command(
      name = "read",
      mixinStandardHelpOptions = true,
      description =
          "Prints a topic's committed records (read_committed) from the beginning: key, ce_*"
              + " headers and value, one per line. Stops after --idle-ms without new records.")
  static final class ReadCommand implements Callable<Integer> {
    @CommandLine.Parameters(index = "0", description = "topic, e.g. device-sessions.v1")
    String topic;

    @Option(names = "--bootstrap", required = true, description = "Kafka bootstrap, host:port")
    String bootstrap;

    @Option(
        names = "--idle-ms",
        description = "stop after this long without records (default: ${DEFAULT-VALUE})")
    long idleMs = 3000;

    @Override
    public Integer call() {
      try {
        int records =
            TopicReader.print(bootstrap, topic, java.time.Duration.ofMillis(idleMs), System.out);
        // On stderr, so that stdout stays the records alone: an empty topic says so.
        System.err.printf(
            "turnstile read: %d record%s in %s (committed ones, until %d ms without a new one)%n",
            records, records == 1 ? "" : "s", topic, idleMs);
        return 0;
      } catch (IllegalArgumentException e) {
        System.err.println("turnstile read: " + e.getMessage());
        return 2;
      }
    }
  }

  @Command(
      name = "send-billing",
      mixinStandardHelpOptions = true,
      description =
          "Sends one billing message (schema billing-message.v1) to a Service Bus queue with the"
              + " real Azure SDK sender, as the back office does: body {sessionId, userId,"
              + " kwhTotal, dollars}, messageId billing-<sessionId>, application property"
              + " mergeKey = <sessionId>. The topology merges it with the closed session whose"
              + " sessionRef is that id; both together give a settled session on post-merge.v1.")
  static final class SendBillingCommand implements Callable<Integer> {
    @Option(
        names = "--connection-string",
        required = true,
        description = "Service Bus connection string (the one ./turnstile up prints)")
    String connectionString;

    @Option(names = "--queue", description = "queue (default: ${DEFAULT-VALUE})")
    String queue = LocalStack.BILLING_QUEUE;

    @Option(
        names = "--session-id",
        required = true,
        description = "the charging session: the sessionRef of its Started and Finished events")
    String sessionId;

    @Option(names = "--user-id", required = true, description = "the driver billed")
    String userId;

    @Option(names = "--kwh", required = true, description = "energy delivered, kWh (>= 0)")
    BigDecimal kwhTotal;

    @Option(names = "--dollars", required = true, description = "amount billed, USD (>= 0)")
    BigDecimal dollars;

    @Option(
        names = "--message-id",
        description =
            "the message's id (default: billing-<sessionId>); a correction of an earlier message"
                + " needs an id of its own: the same id with other content is refused by the"
                + " topology as DUPLICATE_CONFLICT")
    String messageId;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
      if (messageId != null && messageId.isBlank()) {
        throw new CommandLine.ParameterException(spec.commandLine(), "--message-id is blank");
      }
      if (kwhTotal.signum() < 0 || dollars.signum() < 0) {
        throw new CommandLine.ParameterException(
            spec.commandLine(), "--kwh and --dollars must be >= 0");
      }
      if (sessionId.isBlank() || userId.isBlank()) {
        throw new CommandLine.ParameterException(
            spec.commandLine(), "--session-id and --user-id must not be blank");
      }
      try {
        ServiceBusMessage message = BillingPublisher.message(sessionId, userId, kwhTotal, dollars);
        if (messageId != null) {
          message.setMessageId(messageId);
        }
        BillingPublisher.send(connectionString, queue, message);
        System.out.printf(
            "Sent %s to queue %s (mergeKey=%s).%n", message.getMessageId(), queue, sessionId);
      } catch (RuntimeException e) {
        System.err.println("turnstile send-billing: " + e.getMessage());
        return 1;
      }
      return 0;
    }
  }
}
