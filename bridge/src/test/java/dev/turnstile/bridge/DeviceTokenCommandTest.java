package dev.turnstile.bridge;

import static org.assertj.core.api.Assertions.assertThat;

import dev.turnstile.bridge.application.auth.Authentication.Authenticated;
import dev.turnstile.bridge.application.auth.Authentication.Refused;
import dev.turnstile.bridge.application.auth.DeviceCredentials;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DeviceTokenCommandTest {

  @TempDir Path dir;

  @Test
  void printsTheTokenOnceAndTheLineThatAcceptsIt() {
    StringWriter out = new StringWriter();

    int exit =
        DeviceTokenCommand.execute(
            new PrintWriter(out), new PrintWriter(new StringWriter()), "station-7");

    assertThat(exit).isZero();
    List<String> lines = out.toString().lines().map(String::strip).toList();
    String token = lines.get(1);
    String line =
        lines.get(
            lines.indexOf(
                    lines.stream().filter(l -> l.startsWith("Add this")).findFirst().orElseThrow())
                + 1);
    DeviceCredentials credentials = DeviceCredentials.parse(List.of(line));
    assertThat(credentials.authenticate("station-7", List.of("Bearer " + token)))
        .isInstanceOf(Authenticated.class);
    assertThat(credentials.authenticate("station-8", List.of("Bearer " + token)))
        .isInstanceOf(Refused.class);
    assertThat(out.toString().indexOf(token)).isEqualTo(out.toString().lastIndexOf(token));
  }

  @Test
  void appendsToACredentialsFileOnlyItsOwnerReads() throws Exception {
    Path file = dir.resolve("device-credentials");
    StringWriter first = new StringWriter();
    StringWriter second = new StringWriter();

    DeviceTokenCommand.execute(
        new PrintWriter(first),
        new PrintWriter(new StringWriter()),
        "station-1",
        "--append",
        file.toString());
    DeviceTokenCommand.execute(
        new PrintWriter(second),
        new PrintWriter(new StringWriter()),
        "fleet-*",
        "--append",
        file.toString());

    List<String> lines = Files.readAllLines(file);
    assertThat(lines).hasSize(2);
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file)))
        .isEqualTo("rw-------");
    DeviceCredentials credentials = DeviceCredentials.parse(lines);
    String token = second.toString().lines().skip(1).findFirst().orElseThrow().strip();
    assertThat(credentials.authenticate("fleet-9", List.of("Bearer " + token)))
        .isInstanceOf(Authenticated.class);
    assertThat(Files.readString(file)).doesNotContain(token.substring(17));
  }

  @Test
  void refusesDevicesThatAreNoDeviceId() {
    StringWriter err = new StringWriter();

    int exit =
        DeviceTokenCommand.execute(
            new PrintWriter(new StringWriter()), new PrintWriter(err), "two words");

    assertThat(exit).isEqualTo(2);
    assertThat(err.toString()).contains("devices must be a deviceId");
  }
}
