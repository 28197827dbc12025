package dev.turnstile.bridge.config;

import dev.turnstile.runtime.config.ConfigModel;
import dev.turnstile.runtime.config.InvalidConfigurationException;
import dev.turnstile.runtime.config.Settings;
import java.nio.file.Path;
import java.util.Map;

/**
 * The bridge's one configuration loader: a properties file (optional), then {@code TURNSTILE_*}
 * environment variables, which win; every key and every rule between keys checked by {@link
 * BridgeConfigModel#MODEL} (see {@link ConfigModel} for the environment rule). Problems are
 * reported all at once with an {@link InvalidConfigurationException} naming each key.
 */
public final class BridgeConfigLoader {

  private BridgeConfigLoader() {}

  /** Loads from the file (may be {@code null}) and the process environment. */
  public static BridgeConfig load(Path propertiesFile) {
    return load(propertiesFile, System.getenv());
  }

  /** Loads from the file (may be {@code null}) and the given environment; env wins. */
  public static BridgeConfig load(Path propertiesFile, Map<String, String> environment) {
    return from(BridgeConfigModel.MODEL.load(propertiesFile, environment));
  }

  /** The key an environment variable sets, or {@code null} if it sets none. */
  public static String keyOf(String environmentVariable) {
    return BridgeConfigModel.MODEL.keyOf(environmentVariable);
  }

  /** Builds and validates a config from flat keys (as in the properties file). */
  public static BridgeConfig fromMap(Map<String, String> values) {
    return from(BridgeConfigModel.MODEL.parse(values));
  }

  /** The typed configuration of settings the model checked. */
  public static BridgeConfig from(Settings settings) {
    return new BridgeConfig(settings);
  }
}
