package dev.turnstile.topology;

import static dev.turnstile.topology.config.TopologyConfigModel.HTTP_HOST;
import static dev.turnstile.topology.config.TopologyConfigModel.HTTP_PORT;
import static dev.turnstile.topology.config.TopologyConfigModel.STATE_DIR;

import dev.turnstile.runtime.cli.ExitCode;
import dev.turnstile.topology.config.TopologyConfig;
import java.net.BindException;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.InvalidTxnTimeoutException;

/**
 * Why the topology process ends on its own (it cannot start, or Kafka Streams failed), for the
 * operator: the cause, the configuration key to change, and the {@link ExitCode} a supervisor sees.
 *
 * <p>Kafka Streams reports a locked or unusable state directory with a plain {@code
 * StreamsException}; its message is what tells them apart ({@code StateDirectory} in Kafka Streams
 * 4.4), so the tests that inject each failure fail if a later version words it otherwise.
 *
 * @param exitCode {@link ExitCode#CONFIG} when a key is wrong for sure, else {@link
 *     ExitCode#FAILURE}
 * @param message one line: what failed, why, and the key to change
 */
public record ExitReason(int exitCode, String message) {

  /** Describes {@code failure} of the process configured by {@code config}. */
  public static ExitReason of(Throwable failure, TopologyConfig config) {
    String causes = causes(failure);
    String stateDir = config.get(STATE_DIR).toString();
    if (has(failure, BindException.class)) {
      return new ExitReason(
          ExitCode.FAILURE,
          "cannot listen on "
              + HTTP_HOST
              + " "
              + config.get(HTTP_HOST)
              + " port "
              + config.get(HTTP_PORT)
              + " ("
              + causes
              + "): another process has it; set "
              + HTTP_PORT
              + " to a free port");
    }
    if (causes.contains("already locked by another process")
        || causes.contains("Failed to lock the state directory")
        || causes.contains("multiple instances of Kafka Streams are running in the same state")) {
      return new ExitReason(
          ExitCode.FAILURE,
          "the state directory "
              + stateDir
              + " is locked by another Kafka Streams client of "
              + config.applicationId()
              + " (a second topology process on this host or volume): give each process its own"
              + " "
              + STATE_DIR
              + ", or stop the other one");
    }
    if (causes.contains("couldn't be created")
        || causes.contains("existing file with the same name")
        || causes.contains("Unable to read/write process file")) {
      return new ExitReason(
          ExitCode.CONFIG,
          "the state directory "
              + stateDir
              + " cannot be created or written by this user ("
              + causes
              + "): set "
              + STATE_DIR
              + " to a writable directory (on Kubernetes, the mount path"
              + " of the pod's emptyDir)");
    }
    // The producer keeps only the broker's message: "The transaction timeout is larger than the
    // maximum value allowed by the broker (as configured by transaction.max.timeout.ms)".
    if (has(failure, InvalidTxnTimeoutException.class)
        || causes.contains("transaction.max.timeout.ms")) {
      return new ExitReason(
          ExitCode.CONFIG,
          "the broker refuses the transaction timeout of the topology's producers ("
              + causes
              + "): set kafka.streams.producer.transaction.timeout.ms at most the broker's"
              + " transaction.max.timeout.ms");
    }
    if (has(failure, AuthenticationException.class)) {
      return new ExitReason(
          ExitCode.CONFIG,
          "Kafka refused the topology's credentials ("
              + causes
              + "): check kafka.security.protocol, kafka.sasl.mechanism and"
              + " kafka.sasl.jaas.config");
    }
    if (has(failure, AuthorizationException.class)) {
      return new ExitReason(
          ExitCode.FAILURE,
          "Kafka refused an operation of the topology ("
              + causes
              + "): grant the principal of kafka.sasl.jaas.config the ACLs of"
              + " k8s/components/strimzi/kafkauser-topology.yaml");
    }
    return new ExitReason(
        ExitCode.FAILURE,
        "Kafka Streams failed (" + causes + "); the stack trace above says where");
  }

  private static boolean has(Throwable failure, Class<? extends Throwable> type) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (type.isInstance(t)) {
        return true;
      }
      if (t.getCause() == t) {
        return false;
      }
    }
    return false;
  }

  /** Each distinct message along the cause chain, outermost first: {@code a: b: c}. */
  static String causes(Throwable failure) {
    List<String> messages = new ArrayList<>();
    for (Throwable t = failure; t != null && messages.size() < 8; t = t.getCause()) {
      String message = t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
      if (messages.stream().noneMatch(m -> m.contains(message))) {
        messages.add(message);
      }
      if (t.getCause() == t) {
        break;
      }
    }
    return String.join(": ", messages);
  }
}
