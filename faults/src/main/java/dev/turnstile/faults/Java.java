package dev.turnstile.faults;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Command lines for JVMs on the harness's own class path (the Kafka nodes and their format). */
final class Java {

  /** Logback for the Kafka nodes: warnings and errors only, on stderr (the node's log file). */
  static final String QUIET_LOGBACK =
      """
      <configuration>
        <appender name="STDERR" class="ch.qos.logback.core.ConsoleAppender">
          <target>System.err</target>
          <encoder><pattern>%d{HH:mm:ss.SSS} %-5level [%thread] %logger{36} - %msg%n</pattern></encoder>
        </appender>
        <root level="WARN"><appender-ref ref="STDERR"/></root>
      </configuration>
      """;

  private Java() {}

  static List<String> command(
      List<String> jvmOptions, String mainClass, List<String> args, Path logback) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(jvmOptions);
    command.add("-Dlogback.configurationFile=" + logback);
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(mainClass);
    command.addAll(args);
    return command;
  }
}
