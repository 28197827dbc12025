package dev.turnstile.runtime.config;

import java.util.regex.Pattern;
import org.apache.kafka.common.config.ConfigDef;

/**
 * A family of keys repeated per named instance, {@code <prefix><name>.<key>}, such as {@code
 * bridge.servicebus.entity.billing.queue}. The names must be listed in {@code listKey}.
 *
 * @param prefix e.g. {@code bridge.servicebus.entity.}
 * @param namePattern what a name may be
 * @param listKey the key that lists the names, comma-separated
 * @param keys each key of an instance, declared once
 */
public record Template(String prefix, Pattern namePattern, String listKey, ConfigDef keys) {}
