package dev.turnstile.runtime.config;

import java.util.Locale;

/**
 * The mapping between keys and {@code TURNSTILE_*} environment variables: upper case, {@code .} and
 * {@code -} written {@code _}. The reverse is not unique, so a variable is matched against the
 * model's declared keys first, then its templates (instance names have no {@code _}), then its
 * pass-through prefixes, under which the rest is lower-cased with {@code _} as {@code .} (Kafka's
 * keys have neither {@code -} nor {@code _}).
 */
final class EnvironmentNames {

  private EnvironmentNames() {}

  /** The environment variable that sets {@code key}. */
  static String of(String key) {
    return ConfigModel.ENV_PREFIX
        + key.toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_');
  }

  /** The key an environment variable sets, or {@code null} if it sets none this model knows. */
  static String keyOf(ConfigModel model, String variable) {
    for (String key : model.keys().names()) {
      if (of(key).equals(variable)) {
        return key;
      }
    }
    for (Template template : model.templates()) {
      String prefix = of(template.prefix());
      if (variable.startsWith(prefix)) {
        // Instance names match the template's pattern, which has no '_'.
        String rest = variable.substring(prefix.length());
        int split = rest.indexOf('_');
        if (split > 0) {
          String suffix = rest.substring(split + 1);
          for (String key : template.keys().names()) {
            if (of(key).substring(ConfigModel.ENV_PREFIX.length()).equals(suffix)) {
              return template.prefix()
                  + rest.substring(0, split).toLowerCase(Locale.ROOT)
                  + "."
                  + key;
            }
          }
        }
      }
    }
    for (PassThrough passThrough : model.passThroughs()) {
      String prefix = of(passThrough.prefix());
      if (variable.startsWith(prefix) && variable.length() > prefix.length()) {
        return passThrough.prefix()
            + variable.substring(prefix.length()).toLowerCase(Locale.ROOT).replace('_', '.');
      }
    }
    return null;
  }
}
