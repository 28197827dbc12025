package dev.turnstile.bridge;

import dev.turnstile.bridge.application.auth.DeviceCredential;
import dev.turnstile.bridge.application.auth.DeviceCredential.Issued;
import dev.turnstile.runtime.cli.ExitCode;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code turnstile device-token DEVICES [--append FILE]}: issues a device credential. Prints the
 * bearer token once (the bridge keeps only its salted digest, so it cannot be shown again) and the
 * line for the credentials file, or appends that line to the file. Exit codes: {@link ExitCode#OK},
 * {@link ExitCode#FAILURE} when the file cannot be written, {@link ExitCode#CONFIG} for a bad
 * command line.
 */
@Command(
    name = "turnstile device-token",
    mixinStandardHelpOptions = true,
    usageHelpAutoWidth = true,
    description = {
      "Issues a bearer token for a device (or a fleet) and prints it once, with the line to add"
          + " to the bridge's credentials file (bridge.auth.credentials-file). The bridge stores"
          + " and reads only the salted SHA-256 digest of the token; it reads the file again"
          + " every bridge.auth.reload-interval-ms."
    })
public final class DeviceTokenCommand implements Callable<Integer> {

  @Parameters(
      index = "0",
      paramLabel = "DEVICES",
      description =
          "the deviceId the token is for; or a fleet: a deviceId prefix followed by * (quote it:"
              + " 'station-*'), or * for every device")
  String devices;

  @Option(
      names = "--append",
      paramLabel = "FILE",
      description =
          "append the line to this credentials file (created, readable by its owner only, when"
              + " missing) instead of printing it")
  Path append;

  private PrintWriter out;

  public static void main(String[] args) {
    System.exit(
        execute(
            new PrintWriter(System.out, true, StandardCharsets.UTF_8),
            new PrintWriter(System.err, true, StandardCharsets.UTF_8),
            args));
  }

  /** Runs the command as {@code main} would, printing to the writers; returns its exit code. */
  public static int execute(PrintWriter out, PrintWriter err, String... args) {
    DeviceTokenCommand command = new DeviceTokenCommand();
    command.out = out;
    CommandLine line = new CommandLine(command);
    line.setOut(out);
    line.setErr(err);
    line.setExecutionExceptionHandler(
        (e, cmd, parsed) -> {
          err.println("turnstile device-token: " + e.getMessage());
          return e instanceof IllegalArgumentException ? ExitCode.CONFIG : ExitCode.FAILURE;
        });
    return line.execute(args);
  }

  @Override
  public Integer call() throws IOException {
    Issued issued = DeviceCredential.issue(devices);
    out.println("Bearer token for " + devices + " (shown once; give it to the device only):");
    out.println("  " + issued.token());
    out.println();
    if (append == null) {
      out.println("Add this line to the bridge's credentials file (bridge.auth.credentials-file):");
      out.println("  " + issued.credential().line());
    } else {
      appendLine(append, issued.credential().line());
      out.println("Added credential " + issued.credential().id() + " to " + append + ".");
    }
    out.println();
    out.println("The device sends it as:  Authorization: Bearer <token>");
    return ExitCode.OK;
  }

  private static void appendLine(Path file, String line) throws IOException {
    try {
      Files.createFile(
          file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    } catch (FileAlreadyExistsException e) {
      // append below
    } catch (UnsupportedOperationException e) {
      Files.createFile(file);
    }
    Files.writeString(file, line + System.lineSeparator(), StandardOpenOption.APPEND);
  }
}
