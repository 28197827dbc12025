package dev.turnstile.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Flame graphs with async-profiler (its agent comes from Maven Central inside {@code
 * tools.profiler:async-profiler}; {@code jfr-converter} turns the recording into HTML and collapsed
 * stacks). The picture is a screenshot of the HTML taken by headless Chromium when one is installed
 * ({@code apt-get install chromium}); without it the HTML and the stacks are still written.
 */
final class Profiler {

  private Profiler() {}

  /**
   * The {@code -agentpath} option that records samples into {@code jfr}.
   *
   * @param event {@code itimer} (CPU time) or {@code wall} (wall clock, every thread state: where a
   *     thread waits shows too)
   */
  static String agentOption(Path jfr, String event) {
    return "-agentpath:" + extractAgent() + "=start," + recording(jfr, event);
  }

  /** What is recorded, and where: async-profiler's options after {@code start}. */
  private static String recording(Path jfr, String event) {
    String interval = "wall".equals(event) ? "5ms" : "1ms";
    return "event=" + event + ",interval=" + interval + ",file=" + jfr + ",jfr";
  }

  /** System property naming the loaded agent, for {@link #startWhenAsked()}. */
  private static final String LIBRARY_PROPERTY = "turnstile.bench.profiler";

  /** System property holding the recording's options, for {@link #startWhenAsked()}. */
  private static final String RECORDING_PROPERTY = "turnstile.bench.profile";

  /**
   * JVM options that load the agent without starting it: the JVM starts the recording itself when
   * its code calls {@link #startWhenAsked()} (the topology benchmark's child, once its warm-up pass
   * is over), so the profile holds only what follows.
   */
  static List<String> deferredAgentOptions(Path jfr, String event) {
    Path library = extractAgent();
    return List.of(
        "-agentpath:" + library,
        "-D" + LIBRARY_PROPERTY + "=" + library,
        "-D" + RECORDING_PROPERTY + "=" + recording(jfr, event));
  }

  /**
   * In a JVM started with {@link #deferredAgentOptions}: starts the recording and returns what
   * stops it and writes the file. Elsewhere: does nothing.
   */
  static Runnable startWhenAsked() {
    String library = System.getProperty(LIBRARY_PROPERTY);
    String recording = System.getProperty(RECORDING_PROPERTY);
    if (library == null || recording == null) {
      return () -> {};
    }
    one.profiler.AsyncProfiler profiler = one.profiler.AsyncProfiler.getInstance(library);
    execute(profiler, "start," + recording);
    return () -> execute(profiler, "stop," + recording);
  }

  private static void execute(one.profiler.AsyncProfiler profiler, String command) {
    try {
      profiler.execute(command);
    } catch (IOException e) {
      throw new UncheckedIOException("async-profiler refused " + command, e);
    }
  }

  /**
   * Writes {@code flame-<label>.html}, {@code .collapsed} and {@code .png} next to the recording.
   * The picture is an icicle graph (callers on top) without frames under half a percent, so the
   * wide frames are what a screenshot shows.
   *
   * @return the collapsed stacks
   */
  static Path render(Path jfr, String label, Path outputDir) {
    Path html = outputDir.resolve("flame-" + label + ".html");
    Path collapsed = outputDir.resolve("flame-" + label + ".collapsed");
    converter(
        "-o",
        "html",
        "--title",
        "Turnstile bench: " + label,
        "--minwidth",
        "0.5",
        "--simple",
        "--inverted",
        jfr.toString(),
        html.toString());
    converter("-o", "collapsed", jfr.toString(), collapsed.toString());
    Path png = outputDir.resolve("flame-" + label + ".png");
    if (screenshot(html, png)) {
      System.out.println("flame graph: " + png);
    } else {
      System.out.println("flame graph: " + html + " (no chromium for a PNG)");
    }
    return collapsed;
  }

  private static void converter(String... args) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add("Main");
    command.addAll(List.of(args));
    run(command, 300);
  }

  private static boolean screenshot(Path html, Path png) {
    Path chromium = Path.of("/usr/bin/chromium");
    if (!Files.isExecutable(chromium)) {
      return false;
    }
    return run(
        List.of(
            chromium.toString(),
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            "--hide-scrollbars",
            "--window-size=1800,1400",
            "--screenshot=" + png.toAbsolutePath(),
            html.toUri().toString()),
        120);
  }

  private static boolean run(List<String> command, int timeoutSeconds) {
    try {
      Process process =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.DISCARD)
              .start();
      if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        return false;
      }
      return process.exitValue() == 0;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private static Path extractAgent() {
    String resource =
        "linux-"
            + (System.getProperty("os.arch").contains("aarch64") ? "arm64" : "x64")
            + "/libasyncProfiler.so";
    try (InputStream in = Profiler.class.getClassLoader().getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException(
            "async-profiler has no agent for this platform: " + resource);
      }
      Path library = Files.createTempFile("libasyncProfiler", ".so");
      library.toFile().deleteOnExit();
      Files.copy(in, library, StandardCopyOption.REPLACE_EXISTING);
      return library;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
