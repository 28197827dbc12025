package dev.turnstile.topology.config;

import dev.turnstile.runtime.config.Settings;
import java.nio.file.Path;
import java.util.Map;

/**
 * The topology's configuration as read and checked by {@link TopologyConfigModel#MODEL}: a
 * properties file, then {@code TURNSTILE_*} environment variables, which win.
 *
 * @throws dev.turnstile.runtime.config.InvalidConfigurationException from the factories, listing
 *     every problem
 */
public final class ConfigValues {

  private final Settings settings;

  private ConfigValues(Settings settings) {
    this.settings = settings;
  }

  /** Values from {@code file} (may be null), overridden by {@code environment}. */
  public static ConfigValues load(Path file, Map<String, String> environment) {
    return new ConfigValues(TopologyConfigModel.MODEL.load(file, environment));
  }

  /** Values given directly, as tests and the local stack do. */
  public static ConfigValues of(Map<String, String> values) {
    return new ConfigValues(TopologyConfigModel.MODEL.parse(values));
  }

  /** Values already checked by the model. */
  public static ConfigValues of(Settings settings) {
    return new ConfigValues(settings);
  }

  /** The checked values. */
  public Settings settings() {
    return settings;
  }
}
